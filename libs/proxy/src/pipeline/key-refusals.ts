import { KeyRefusedError, Principal, RefusedKey } from '@svc/auth';
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

export function insufficientScope(scope: string, principal: Principal): GatewayError {
  const error = new KeyRefusedError(
    403,
    {
      message: `This key lacks the scope ${scope}`,
      type: 'permission_error',
      code: 'insufficient_scope',
      remediation: `Create a key with the ${scope} scope (gateway_proxy is accepted as gateway:write).`,
    },
    { orgId: principal.orgId, keyId: principal.keyId ?? '', keyName: principal.keyName ?? 'unknown', teamId: principal.teamId },
  );
  return error;
}
