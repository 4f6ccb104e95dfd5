import { GatewayError, MAX_PARAM_LENGTH, pathOf } from '@svc/platform';
import type { ProviderDefinition } from '../providers';

/**
 * The answers for paths the gateway does not serve (docs/gateway-routes.md "Routes"): 404 `not_found` or
 * 405 `method_not_allowed` in the gateway error format, naming the routes it does serve, so an SDK
 * method the gateway does not offer (`responses.create()`, `images.generate()`, `files.list()` with
 * `baseURL {base_url}/v1`) raises a readable NotFoundError instead of a framework default.
 */

/** The proxy routes, for the messages below. */
const PROXY_ROUTES =
  'The gateway serves POST /v1/chat/completions, POST /v1/embeddings, POST /v1/messages, GET /v1/models and GET /v1/models/{model}, ' +
  'the same below a provider base /v1/{provider}, and any path below /v1/{provider} of a format-A compatible (D) provider (such as /v1/mistral/{path}); ' +
  'GET /v1/models lists the providers, /docs every route.';

const REMEDIATION =
  "Use one of the gateway's routes, or send the call to a format-A compatible (D) provider's base (/v1/{provider}/{path}); " +
  "an API the gateway does not proxy (for example OpenAI's Responses, Files or Images API) is not offered through it.";

/** The gateway's own routes under `/v1`, with their one method (for a 405's `Allow`). */
const OWN_ROUTES: readonly { pattern: RegExp; method: string }[] = [
  { pattern: /^\/v1\/chat\/completions$/, method: 'POST' },
  { pattern: /^\/v1\/embeddings$/, method: 'POST' },
  { pattern: /^\/v1\/messages$/, method: 'POST' },
  { pattern: /^\/v1\/models$/, method: 'GET' },
  { pattern: /^\/v1\/health$/, method: 'GET' },
  { pattern: /^\/v1\/providers\/health$/, method: 'GET' },
  { pattern: /^\/v1\/health\/detailed$/, method: 'GET' },
  { pattern: /^\/v1\/approvals\/[^/]+\/status$/, method: 'GET' },
];

/** `/v1/admin` and below: the gateway admin's (docs/admin-api.md), never a provider's base. */
const ADMIN_PATH = /^\/v1\/admin(\/|$)/;

/** The gateway admin's routes under `/v1/admin` that take an id. */
const ADMIN_ID_ROUTES: readonly { pattern: RegExp; methods: readonly string[] }[] = [
  { pattern: /^\/v1\/admin\/api-keys\/[^/]+$/, methods: ['DELETE'] },
  { pattern: /^\/v1\/admin\/webhooks\/[^/]+$/, methods: ['PUT', 'PATCH'] },
];

/**
 * 404 `not_found` for a method or path under `/v1/admin` that the gateway admin does not serve, as
 * the gateway admin answers it when deployed alone (its router's 404 in the gateway format): on
 * `npm start`'s port those requests reach the proxy's catch-all, which never forwards them. One of
 * its routes with its own method reaches here only for an id over MAX_PARAM_LENGTH: 414, as there.
 */
function noSuchAdminRoute(method: string, path: string): GatewayError {
  if (ADMIN_ID_ROUTES.some((route) => route.pattern.test(path) && route.methods.includes(method))) return uriTooLong();
  return new GatewayError(404, {
    message:
      `No route ${method} ${path}. /v1/admin is the gateway admin's, never a provider: it serves GET and POST /v1/admin/api-keys, ` +
      'DELETE /v1/admin/api-keys/{id}, GET /v1/admin/webhooks, PUT and PATCH /v1/admin/webhooks/{id}; /docs lists every route.',
    type: 'not_found_error',
    code: 'not_found',
    remediation: "Use one of those routes with its method where the gateway admin is served (npm start's gateway port, the gateway admin service, or the Ingress's /v1/admin rule).",
  });
}

/**
 * The gateway admin deployed alone (apps/gateway-admin), for a request its router does not serve:
 * the refusal above for `/v1/admin` and below, worded as on `npm start`'s port; undefined elsewhere.
 */
export function unservedAdminRoute(method: string, url: string): GatewayError | undefined {
  const path = pathOf(url);
  return ADMIN_PATH.test(path) ? noSuchAdminRoute(method, path) : undefined;
}

/** 414 `uri_too_long`, as the router answers a path segment over MAX_PARAM_LENGTH. */
function uriTooLong(): GatewayError {
  return new GatewayError(414, {
    message: `A path segment is longer than the server accepts (at most ${MAX_PARAM_LENGTH} characters)`,
    type: 'invalid_request_error',
    code: 'uri_too_long',
  });
}

/** The B API's token-counting path below each B base (`/v1`, `/v1/{provider_b}`, `/v1/{provider_b}/v1`). */
export const COUNT_TOKENS = /\/messages\/count_tokens\/?$/;

/**
 * The refusal of a path under `/v1` that no route serves, answered before authentication (no key
 * is needed to learn that a route does not exist): 405 with `Allow` for a route of the gateway
 * called with another method, 404 naming the routes otherwise.
 */
export function noSuchRoute(method: string, url: string): GatewayError {
  const path = pathOf(url);
  if (ADMIN_PATH.test(path)) return noSuchAdminRoute(method, path);
  if (COUNT_TOKENS.test(path)) return countTokensNotOffered(method, path);
  const own = OWN_ROUTES.find((route) => route.pattern.test(path));
  // Its own method on its own path reaches here only when the router skipped the route for a parameter
  // over MAX_PARAM_LENGTH (an approval id): the 414 of every over-long path segment, not a 405 naming that method.
  if (own && (method === own.method || (method === 'HEAD' && own.method === 'GET'))) return uriTooLong();
  if (own) {
    return new GatewayError(
      405,
      { message: `${method} is not allowed on ${path}; use ${own.method}`, type: 'invalid_request_error', code: 'method_not_allowed' },
      { Allow: own.method },
    );
  }
  return new GatewayError(404, { message: `No route ${method} ${path}. ${PROXY_ROUTES}`, type: 'not_found_error', code: 'not_found', remediation: REMEDIATION });
}

/**
 * A path below `/v1/{provider}` that the catch-all does not forward (authenticated: the
 * organization's provider targets are providers too): `provider` is not a provider of the
 * organization, or not a format-A compatible (D) one, whose base takes only the routes listed.
 */
export function notForwarded(method: string, url: string, segment: string, provider: ProviderDefinition | undefined): GatewayError {
  const path = pathOf(url);
  if (!provider) {
    return new GatewayError(404, {
      message: `No route ${method} ${path}: '${segment}' is neither a route of the gateway nor a provider of this organization. ${PROXY_ROUTES}`,
      type: 'not_found_error',
      code: 'not_found',
      remediation: REMEDIATION,
    });
  }
  const base = `/v1/${segment}`;
  const served = providerRoutes(provider).map(([verb, rest]) => `${verb} ${base}/${rest}`);
  return new GatewayError(404, {
    message:
      `No route ${method} ${path}: below ${base} the gateway serves ${served.join(', ')}. ` +
      `Other paths are forwarded only for format-A compatible (D) providers (such as /v1/mistral/{path}); ${provider.id} is a provider of label ${provider.label}.`,
    type: 'not_found_error',
    code: 'not_found',
    remediation: REMEDIATION,
  });
}

/** The routes below a provider base `/v1/{provider}`, by the provider's format. */
function providerRoutes(provider: ProviderDefinition): [string, string][] {
  const routes: [string, string][] = [['POST', 'chat/completions']];
  if (provider.embeddings) routes.push(['POST', 'embeddings']);
  if (provider.format === 'anthropic') routes.push(['POST', 'messages'], ['POST', 'v1/messages'], ['GET', 'v1/models'], ['GET', 'v1/models/{model}']);
  routes.push(['GET', 'models'], ['GET', 'models/{model}']);
  return routes;
}

/**
 * 404 for the Anthropic SDK's `messages.countTokens()`: the gateway forwards only requests that
 * pass its governance chain (a count would send the prompt upstream past the PII and safety
 * stages), and the route is not in its list (docs/gateway.md).
 */
function countTokensNotOffered(method: string, path: string): GatewayError {
  return new GatewayError(404, {
    message: `No route ${method} ${path}: the gateway does not offer token counting (messages/count_tokens). A message's usage.input_tokens gives the count of a request it served.`,
    type: 'not_found_error',
    code: 'not_found',
    remediation: "Read usage.input_tokens of the answer, or call the provider's own API for a count before sending.",
  });
}

/** 404 `unknown_provider`: `id` names no provider of the organization. */
export function unknownProvider(id: string): GatewayError {
  return new GatewayError(404, {
    message: `Unknown provider '${id}'. GET /v1/models lists the providers and their models.`,
    type: 'not_found_error',
    code: 'unknown_provider',
    param: 'provider',
  });
}
