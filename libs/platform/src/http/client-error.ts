import { HttpException } from '@nestjs/common';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ErrorSurface } from '../errors/errors';
import { toErrorResponse } from '../errors/error-response';
import { REFUSAL_SECURITY_HEADERS } from './security-headers';

const SECURITY_HEADER_LINES = Object.entries(REFUSAL_SECURITY_HEADERS).map(([name, value]) => `${name}: ${value}`);

/** What Node's HTTP parser refuses before a request exists, by the error's `code`. */
function statusOf(code: string | undefined): { status: number; message: string } {
  if (code === 'HPE_HEADER_OVERFLOW') return { status: 431, message: 'The request headers are larger than the server accepts (16 KB in all)' };
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, message: 'The request did not arrive in time' };
  return { status: 400, message: 'Malformed HTTP request' };
}

/**
 * Fastify's `clientErrorHandler`: a request Node's parser refuses (headers too large, malformed
 * HTTP, too slow) never reaches Nest, and Fastify's default answer is its own
 * `{"error", "message", "statusCode"}`. This answers in the surface's documented format instead
 * (with `X-SVC-Request-ID` on the gateway surfaces) and closes the connection, as Node requires.
 */
export function clientErrorHandler(surface: ErrorSurface, newRequestId: () => string): (error: Error & { code?: string }, socket: Duplex) => void {
  return (error, socket) => {
    if (error.code === 'ECONNRESET' || socket.destroyed || !socket.writable) {
      socket.destroy();
      return;
    }
    const { status, message } = statusOf(error.code);
    const requestId = newRequestId();
    const response = toErrorResponse(new HttpException({ message }, status), surface, requestId);
    const body = JSON.stringify(response.body);
    const head = [
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Bad Request'}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      // What every other answer gets from `useApiResponseHeaders`, whose hook never runs here.
      ...SECURITY_HEADER_LINES,
      ...(surface === 'gateway' ? [`X-SVC-Request-ID: ${requestId}`] : []),
      'Connection: close',
    ];
    socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
  };
}

/**
 * Fastify's `frameworkErrors`: what its router refuses before any route or hook runs (a path that
 * is not valid percent-encoding, a path parameter over `maxParamLength`), answered in the surface's
 * documented format instead of Fastify's `{"error": "Bad Request", "code": "FST_ERR_..."}`.
 */
export function frameworkErrorHandler(surface: ErrorSurface): (error: Error, request: FastifyRequest, reply: FastifyReply) => void {
  return (error, request, reply) => {
    const response = toErrorResponse(error, surface, String(request.id));
    if (surface === 'gateway') void reply.header('X-SVC-Request-ID', String(request.id));
    // Fastify's hooks never run for these: the headers `useApiResponseHeaders` gives every other answer.
    void reply.headers(REFUSAL_SECURITY_HEADERS);
    void reply.code(response.status).headers(response.headers).type('application/json; charset=utf-8').send(JSON.stringify(response.body));
  };
}
