import { asOrgId } from '@svc/domain';
import { GatewayError } from '@svc/platform';
import { KeyRefusedError } from './gateway-key-authenticator';
import { checkOrgHeader } from './org-header';
import { Principal } from './principal';

const principal: Principal = {
  kind: 'api_key',
  orgId: asOrgId('org_a'),
  organization: { _id: 'org_a', name: 'A', plan: 'enterprise', subscription_status: 'active' },
  scopes: ['gateway:write'],
  keyId: 'key_1',
  keyName: 'ci',
  teamId: 'team_1',
  userId: null,
  role: null,
  deprecation: null,
};

const thrown = (run: () => void): unknown => {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a refusal');
};

describe('checkOrgHeader', () => {
  it.each([[{}], [{ 'x-org-id': 'org_a' }], [{ 'x-org-id': ' org_a ' }], [{ 'x-org-id': '' }], [{ 'x-org-id': ['org_a', 'org_b'] }]])('accepts %j for org_a', (headers) => {
    expect(() => checkOrgHeader(headers, 'org_a', 'key', principal)).not.toThrow();
  });

  it('refuses another organization with 403 org_mismatch naming the credential', () => {
    const error = thrown(() => checkOrgHeader({ 'x-org-id': 'org_b' }, 'org_a', 'token'));
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).not.toBeInstanceOf(KeyRefusedError);
    expect(error).toMatchObject({
      status: 403,
      body: { type: 'permission_error', code: 'org_mismatch', message: 'X-Org-ID names an organization this token does not belong to' },
    });
  });

  it('with the key, the refusal names it so the proxy can record it under its organization', () => {
    const error = thrown(() => checkOrgHeader({ 'x-org-id': 'org_b' }, 'org_a', 'key', principal));
    expect(error).toBeInstanceOf(KeyRefusedError);
    expect((error as KeyRefusedError).key).toEqual({ orgId: 'org_a', keyId: 'key_1', keyName: 'ci', teamId: 'team_1' });
    expect((error as KeyRefusedError).body.remediation).toBe("Leave X-Org-ID out (the key acts for its own organization) or send that organization's id.");
  });
});
