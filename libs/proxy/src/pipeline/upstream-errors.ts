import { GatewayError, OutboundBlockedError } from '@svc/platform';
import { BreakerOpenError, UpstreamFailure } from '../breaker/provider-breaker';
import { ClientAbortedError, UpstreamRequestInvalid } from '../transport/upstream-client';

/** The gateway's answers to an exchange that failed before the provider's own answer could be relayed. */

/**
 * 502 for an upstream redirect (3xx). The gateway never follows one (undici's dispatch does not)
 * and never relays it: a client following the `Location` would send its own headers, the gateway
 * key in `X-SVC-API-Key` among them, to whatever host the provider named, past the governance
 * chain. Not counted by the breaker: a redirect is a misconfigured base URL, not an outage.
 */
export function upstreamRedirect(provider: string, status: number): GatewayError {
  return new GatewayError(502, {
    message: `${provider}: the provider answered HTTP ${status} (a redirect); the gateway neither follows nor relays redirects`,
    type: 'api_error',
    param: null,
    code: 'upstream_invalid_response',
    remediation: "Check the provider's base URL (<PROVIDER>_BASE_URL, or the provider target's base_url): a redirect usually means a wrong scheme, host or path.",
  });
}

/** The headers that carry the provider key upstream (A and D `authorization`, B `x-api-key`, Azure-style targets `api-key`). */
const PROVIDER_KEY_HEADERS: ReadonlySet<string> = new Set(['authorization', 'x-api-key', 'api-key']);

/**
 * A request undici would not send: a provider key that no header can carry (a stored secret or a
 * `<PROVIDER>_API_KEY` with a line break, a control or a non-ASCII character) is 401
 * `invalid_provider_key`; another header (a provider target's) 502 `upstream_request_invalid`.
 */
function unsendableRequest(error: UpstreamRequestInvalid, provider: string): GatewayError {
  if (error.header && PROVIDER_KEY_HEADERS.has(error.header)) {
    return new GatewayError(401, {
      message: `${provider}: the provider key cannot be sent in an HTTP header (it holds a line break, a control or a non-ASCII character)`,
      type: 'authentication_error',
      code: 'invalid_provider_key',
      remediation: 'Store the key again (POST /gateway/admin/secrets or the provider target), correct <PROVIDER>_API_KEY, or send a valid X-Provider-Key.',
    });
  }
  return new GatewayError(502, {
    message: `${provider}: the upstream request could not be sent (${error.message})`,
    type: 'api_error',
    code: 'upstream_request_invalid',
    remediation: "Check the provider target's headers: their values must be printable ASCII.",
  });
}

/** Maps a failed exchange to the gateway's answer: open breaker 503, deadline 504, connection 502. */
export function upstreamError(error: unknown, provider: string): Error {
  if (error instanceof BreakerOpenError) {
    return new GatewayError(
      503,
      {
        message: `The circuit breaker for ${provider} is open after repeated upstream failures; retry in ${error.retryAfterSeconds} s`,
        type: 'service_unavailable',
        code: 'circuit_breaker_open',
        remediation: 'Retry after the Retry-After delay, or route to another provider.',
      },
      { 'Retry-After': String(error.retryAfterSeconds) },
    );
  }
  if (error instanceof ClientAbortedError) return error;
  if (error instanceof UpstreamRequestInvalid) return unsendableRequest(error, provider);
  if (error instanceof OutboundBlockedError) {
    return new GatewayError(502, {
      message: `${provider}: the provider's address is not allowed (${error.message})`,
      type: 'api_error',
      code: 'upstream_address_blocked',
      remediation: 'Point the provider target at a public address, or set OUTBOUND_ALLOW_PRIVATE_NETWORKS=true where private addresses are intended.',
    });
  }
  if (error instanceof UpstreamFailure) {
    const timeout = /timeout|deadline/.test(error.message);
    return new GatewayError(timeout ? 504 : 502, {
      message: `${provider}: ${error.message}`,
      type: 'api_error',
      code: timeout ? 'upstream_timeout' : 'upstream_unavailable',
      remediation: 'Retry later; if it persists, check the provider status or the base URL configuration.',
    });
  }
  return error instanceof Error ? error : new Error(String(error));
}
