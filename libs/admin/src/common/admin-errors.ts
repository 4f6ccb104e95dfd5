import { ConflictError, GatewayError, invalidRequest, OutboundBlockedError } from '@svc/platform';

/** 409 `resource_already_exists` (SPEC.md "Admin conflicts") with the resource type and the id in the way. */
export function alreadyExists(resourceType: string, message: string, conflictingId: string | null): ConflictError {
  return new ConflictError('resource_already_exists', message, { resource_type: resourceType, conflicting_id: conflictingId });
}

/** Longest cursor any admin list hands out (longer ones are refused before they are decoded). */
export const MAX_CURSOR_CHARS = 512;

/**
 * 400 `invalid_cursor`, `param` `cursor`: a `cursor` that is not a `next_cursor` this API returned.
 * Every cursor-paged list (`/usage`, `/discovery/catalog`) answers a bad cursor with it.
 */
export function invalidCursor(): GatewayError {
  return invalidRequest('cursor is not a cursor this API returned; pass the previous page’s next_cursor as it came', 'cursor', 'invalid_cursor');
}

/** What to do about a refused destination, by the reason of the refusal. */
const URL_REMEDIATION: Partial<Record<OutboundBlockedError['reason'], string>> = {
  blocked_address:
    'Use a public address. Private, loopback, link-local and metadata addresses are refused unless OUTBOUND_ALLOW_PRIVATE_NETWORKS=true (development only).',
  lookup_timeout: 'The name servers of the host did not answer within DISCOVERY_TIMEOUT_MS; check its DNS, or try again later.',
};

/** 400 `url_not_allowed`: the destination fails the outbound-safety rules (DECISIONS.md). */
export function urlNotAllowed(error: OutboundBlockedError, param: string): GatewayError {
  return new GatewayError(400, {
    message: error.message,
    type: 'invalid_request_error',
    code: 'url_not_allowed',
    param,
    remediation: URL_REMEDIATION[error.reason] ?? 'Use an absolute http(s) URL without credentials whose host resolves.',
  });
}

export { invalidRequest };
