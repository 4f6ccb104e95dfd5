import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * Refuses every request that one of `routes` (Fastify route patterns, as `request.routeOptions.url`
 * gives them) matches before its body is read: an `onRequest` hook hands `refusal` to the error
 * handler, so the surface's exception filter renders it as any other error. The content type is
 * never looked at and the body never parsed or buffered, so no 415, malformed JSON or size limit
 * comes first (a removed route: SPEC.md "Versioning"). Must be called before the server listens.
 */
export function refuseBeforeBody(fastify: FastifyInstance, routes: readonly string[], refusal: (request: FastifyRequest) => Error): void {
  const patterns = new Set(routes);
  fastify.addHook('onRequest', (request, _reply, done) => {
    const pattern = request.routeOptions.url;
    if (pattern !== undefined && patterns.has(pattern)) done(refusal(request));
    else done();
  });
}
