import { GatewayError, OrgApiError } from '@svc/platform';

/** Gateway `type` and `code` of the organization API's codes that the shared services throw. */
const CODES: Record<string, { type: string; code: string }> = {
  VALIDATION_ERROR: { type: 'invalid_request_error', code: 'invalid_request' },
  URL_NOT_ALLOWED: { type: 'invalid_request_error', code: 'url_not_allowed' },
  NOT_FOUND: { type: 'not_found_error', code: 'not_found' },
  UNAUTHORIZED: { type: 'authentication_error', code: 'invalid_api_key' },
  SERVICE_UNAVAILABLE: { type: 'service_unavailable', code: 'service_unavailable' },
};

/**
 * An organization API refusal of the services both surfaces share (@svc/org-resources) as the
 * gateway error it is on `/v1/admin/...`: the gateway's type and code, `param` from its details.
 * A 403 is `insufficient_lifetime` for an `expires_at` past the calling key's own, else
 * `insufficient_scope` (a key granting scopes it does not hold), as on key rotation. 409s are
 * ConflictErrors already (the admin conflict shape on either surface) and pass as they are.
 */
export function gatewayErrorOf(error: OrgApiError): GatewayError {
  const param = typeof error.details['param'] === 'string' ? error.details['param'] : null;
  if (error.status === 403) {
    return new GatewayError(403, { message: error.message, type: 'permission_error', code: param === 'expires_at' ? 'insufficient_lifetime' : 'insufficient_scope', param });
  }
  const known = CODES[error.code] ?? { type: error.status >= 500 ? 'api_error' : 'invalid_request_error', code: error.code.toLowerCase() };
  return new GatewayError(error.status, { message: error.message, ...known, param }, error.headers);
}

/** The result of a shared service's call, its OrgApiError rendered as the gateway error (see gatewayErrorOf). */
export async function asGatewayCall<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    throw error instanceof OrgApiError ? gatewayErrorOf(error) : error;
  }
}
