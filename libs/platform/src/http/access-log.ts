import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';

const CLAIMED = Symbol('svc.accessLogClaimed');
type Claimable = ServerResponse & { [CLAIMED]?: true };

/** True when `ACCESS_LOG` is on and the logger writes info lines. */
export function accessLogEnabled(config: { ACCESS_LOG: boolean }, logger: Logger): boolean {
  return config.ACCESS_LOG && logger.isLevelEnabled('info');
}

/** The path of a request URL without its query string (which may carry `api_key`). */
export function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

/** Milliseconds to two decimals, as the usage records give them. */
export const roundMs = (ms: number): number => Math.round(ms * 100) / 100;

/**
 * Says that the handler of this response writes its own access line (the proxy, whose line names
 * the organization, provider, model and cost), so the generic one is not written as well.
 */
export function claimAccessLog(response: ServerResponse): void {
  (response as Claimable)[CLAIMED] = true;
}

/**
 * `ACCESS_LOG`: one info line per request once its answer is written or its connection closed:
 * request id, method, path (no query string), status (499 when the client left first) and
 * latency. Registered before every other hook, so it sees requests that a later hook answers.
 */
export function useAccessLog(fastify: FastifyInstance, logger: Logger): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    const started = performance.now();
    const response: Claimable = reply.raw;
    response.once('close', () => {
      if (response[CLAIMED]) return;
      logger.info(
        {
          request_id: String(request.id),
          method: request.method,
          path: pathOf(request.url),
          status_code: response.writableFinished ? response.statusCode : 499,
          latency_ms: roundMs(performance.now() - started),
        },
        'request',
      );
    });
    done();
  });
}
