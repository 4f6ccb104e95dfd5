import type { FastifyInstance } from 'fastify';

/**
 * The Content-Security-Policy of every API answer (the proxy's, the runner stream's and every answer
 * Fastify sends outside `/docs`): nothing may load, run, submit or frame it. An API answer is never
 * a page, but a provider's (or a provider target's) HTML error page relayed by the proxy could be
 * rendered by a browser that opens the URL: with this policy its scripts, styles, images and forms
 * are inert. A constant, so the proxy's hot path sets it without building anything.
 */
export const API_CONTENT_SECURITY_POLICY = "default-src 'none'; form-action 'none'; frame-ancestors 'none'";

/** The headers of an answer written without Fastify's hooks (the router's and the HTTP parser's refusals). */
export const REFUSAL_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': API_CONTENT_SECURITY_POLICY,
  'Cache-Control': 'no-store',
};

/**
 * The policy of the interactive OpenAPI page (`/docs`, Swagger UI) and its assets: its scripts,
 * stylesheets and images from the service itself (`'unsafe-inline'` styles: the page has inline
 * `<style>` blocks and `style` attributes; images: the favicon and `data:` icons of its CSS), "Try it
 * out" calls to the service itself, no inline script, no plugin, no form elsewhere, never framed.
 */
export const DOCS_CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Whether a request URL (path and query) is the interactive OpenAPI page or one of its assets. */
export function isDocsUrl(url: string): boolean {
  return url.startsWith('/docs') && (url.length === 5 || url[5] === '/' || url[5] === '?');
}

/**
 * Every answer Fastify sends: `nosniff`, the API's Content-Security-Policy (`/docs` its own, with
 * `X-Frame-Options: DENY` for browsers that ignore `frame-ancestors`, when the surface serves docs),
 * and `Cache-Control: no-store` unless the route set its own, since these answers carry tokens,
 * keys, usage and policies that no shared cache should keep. The proxy's `ProxyReply` and the runner
 * stream hijack the reply and set them themselves.
 */
export function useApiResponseHeaders(fastify: FastifyInstance, options: { docs: boolean }): void {
  const docs = options.docs;
  fastify.addHook('onSend', (request, reply, payload, done) => {
    void reply.header('X-Content-Type-Options', 'nosniff');
    if (docs && isDocsUrl(request.url)) {
      void reply.header('Content-Security-Policy', DOCS_CONTENT_SECURITY_POLICY);
      void reply.header('X-Frame-Options', 'DENY');
    } else {
      void reply.header('Content-Security-Policy', API_CONTENT_SECURITY_POLICY);
    }
    if (!reply.hasHeader('cache-control')) void reply.header('Cache-Control', 'no-store');
    done(null, payload);
  });
}
