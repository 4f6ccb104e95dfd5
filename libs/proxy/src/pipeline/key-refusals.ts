import { checkOrgHeader, HeaderBag, hasScope, KeyRefusedError, parseCredentials, Principal, RefusedKey, refusedKeyOf, repeatedAuthorization, RequestCredentials } from '@svc/auth';
import { asOrgId } from '@svc/domain';
import { GatewayError } from '@svc/platform';
import type { ProxyRequest } from '../http/proxy-io';

/** The principal of a key refused by authentication (its organization is known; it holds no scopes). */
export function principalOfRefusedKey(key: RefusedKey): Principal {
  return {
    kind: 'api_key',
    orgId: asOrgId(key.orgId),
    organization: { _id: key.orgId, name: '', plan: 'free', subscription_status: 'active' },
    scopes: [],
    keyId: key.keyId,
    keyName: key.keyName,
    teamId: key.teamId,
    userId: null,
    role: null,
    deprecation: null,
  };
}

/**
 * What an authenticated key may do here, checked before anything is counted or sent upstream: an
 * `X-Org-ID` naming another organization is 403 `org_mismatch` (as on the gateway admin), a missing
 * scope 403 `insufficient_scope`. Both name the key, so the proxy records the refusal under its organization.
 */
export function checkKeyAccess(headers: HeaderBag, principal: Principal, scope: string): void {
  checkOrgHeader(headers, principal.orgId, 'key', principal);
  if (!hasScope(principal.scopes, scope)) throw insufficientScope(scope, principal);
}

export function insufficientScope(scope: string, principal: Principal): GatewayError {
  const error = new KeyRefusedError(
    403,
    {
      message: `This key lacks the scope ${scope}`,
      type: 'permission_error',
      code: 'insufficient_scope',
      remediation: `Create a key with the ${scope} scope (gateway_proxy is accepted as gateway:write).`,
    },
    refusedKeyOf(principal),
  );
  return error;
}

/**
 * The credentials of a proxy request. A gateway key sent as `X-Provider-Key` (401
 * `invalid_provider_key`) is refused once the gateway key is authenticated, not before: the
 * refusal of an identified key then carries its organization's headers (`X-Gateway-Org`, the
 * rate-limit window, today's spend) and leaves a usage record, like the other refusals of a known
 * key. An unknown gateway key is still the 401 of those; with no other gateway key in the request
 * the refusal is immediate.
 */
export function readProxyCredentials(request: ProxyRequest, readXApiKey: boolean): { credentials: RequestCredentials; providerKeyRefusal?: GatewayError } {
  const input = { headers: request.headers, query: request.query, readXApiKey, authorization: repeatedAuthorization(request.rawHeaders) };
  try {
    return { credentials: parseCredentials(input) };
  } catch (error) {
    if (!(error instanceof GatewayError) || error.body.code !== 'invalid_provider_key') throw error;
    const headers = { ...request.headers };
    delete headers['x-provider-key'];
    const credentials = parseCredentials({ ...input, headers });
    // Without a gateway key elsewhere, the mix-up of the two headers is the answer that helps.
    if (!credentials.gatewayKey) throw error;
    return { credentials, providerKeyRefusal: error };
  }
}
