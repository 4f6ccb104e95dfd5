import { checkOrgHeader, HeaderBag, hasScope, KeyRefusedError, Principal, RefusedKey, refusedKeyOf } from '@svc/auth';
import { asOrgId } from '@svc/domain';
import { GatewayError } from '@svc/platform';

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
