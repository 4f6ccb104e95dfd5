import { ArgumentsHost, Catch, ExceptionFilter, HttpException, NotFoundException } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { redactUrl } from '@svc/telemetry';
import { pathOf } from '../http/access-log';
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

/**
 * The refusal of a request that no route serves (method and raw URL), rendered in the surface's
 * format; undefined leaves it to the generic one (`unroutedRefusal`).
 */
export type UnroutedRefusal = (method: string, url: string) => unknown;

/**
 * The generic 404 for a request no route serves, in place of Nest's `Cannot GET /x`: worded as the
 * gateway's own refusals (`No route GET /x`), the path without its query string (which may carry a
 * credential such as `api_key`), and `/docs` named where the surface serves it.
 */
export function unroutedRefusal(method: string, url: string, docs: boolean): NotFoundException {
  return new NotFoundException(`No route ${method} ${pathOf(url)}${docs ? '; /docs lists every route' : ''}`);
}

/**
 * A 415: Fastify's `FST_ERR_CTP_INVALID_MEDIA_TYPE` (which Nest's error handler turns into an
 * HttpException with its status) or the `*` parser's refusal (json-body.ts, a status on an Error).
 */
function isMediaTypeRefusal(exception: unknown): boolean {
  if (exception instanceof HttpException) return exception.getStatus() === 415;
  return exception instanceof Error && (exception as { statusCode?: unknown }).statusCode === 415;
}

/** One filter per API surface turns every exception into that surface's documented body. */
@Catch()
export class SurfaceExceptionFilter implements ExceptionFilter {
  constructor(
    private readonly surface: ErrorSurface,
    private readonly logger: Logger,
    private readonly unrouted: { docs: boolean; refusal?: UnroutedRefusal } = { docs: false },
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    // The router's not-found handler (no route matched: `is404`) throws Nest's NotFoundException.
    // Fastify checks the content type before that handler runs: a malformed `Content-Type` (`text`,
    // empty), or any non-JSON type where a `*` parser is set (the proxy's raw prefix), is refused
    // with 415 first. A request no route serves answers its 404 whatever its content type; routes
    // that exist keep their 415.
    const unrouted = request.is404 && (exception instanceof NotFoundException || isMediaTypeRefusal(exception));
    const error = unrouted ? this.unroutedError(request) : exception;
    sendError(error, this.surface, request, http.getResponse<FastifyReply>(), this.logger);
  }

  private unroutedError(request: FastifyRequest): unknown {
    return this.unrouted.refusal?.(request.method, request.url) ?? unroutedRefusal(request.method, request.url, this.unrouted.docs);
  }
}
