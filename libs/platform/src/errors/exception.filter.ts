import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { redactUrl } from '@svc/telemetry';
import { ErrorSurface } from './errors';
import { toErrorResponse } from './error-response';

/** Sends an error in the surface's documented format; logs 5xx with their error id and stack. */
export function sendError(
  error: unknown,
  surface: ErrorSurface,
  request: FastifyRequest,
  reply: FastifyReply,
  logger: Logger,
): void {
  const requestId = String(request.id);
  const response = toErrorResponse(error, surface, requestId);
  if (response.errorId) {
    // The route pattern, and the URL with credential query values (`?api_key=`) masked.
    logger.error(
      { err: error, error_id: response.errorId, request_id: requestId, method: request.method, route: request.routeOptions?.url, url: redactUrl(request.url) },
      'request failed',
    );
  }
  if (reply.sent || reply.raw.headersSent) {
    // A stream already started: the connection is all that is left to end.
    if (!reply.raw.writableEnded) reply.raw.end();
    return;
  }
  for (const [name, value] of Object.entries(response.headers)) reply.header(name, value);
  if (surface === 'gateway') reply.header('X-SVC-Request-ID', requestId);
  reply.status(response.status).type('application/json').send(response.body);
}

/** One filter per API surface turns every exception into that surface's documented body. */
@Catch()
export class SurfaceExceptionFilter implements ExceptionFilter {
  constructor(
    private readonly surface: ErrorSurface,
    private readonly logger: Logger,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    sendError(exception, this.surface, http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>(), this.logger);
  }
}
