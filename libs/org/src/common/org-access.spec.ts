import { describeAccess, keyAllows, roleAllows } from './org-access';

describe('organization API access rules', () => {
  it('lets every role read, Managers and Operators operate, only Owners and Admins administer', () => {
    expect(roleAllows('Member', 'read')).toBe(true);
    expect(roleAllows('Member', 'operate')).toBe(false);
    expect(roleAllows('Member', 'admin')).toBe(false);
    expect(roleAllows('Operator', 'operate')).toBe(true);
    expect(roleAllows('Manager', 'admin')).toBe(false);
    expect(roleAllows('Admin', 'admin')).toBe(true);
    expect(roleAllows('Owner', 'admin')).toBe(true);
  });

  it('accepts a key holding any listed scope; a write scope implies its read scope', () => {
    expect(keyAllows(['keys:write'], ['keys:read', 'admin:read'])).toBe(true);
    expect(keyAllows(['admin:write'], ['keys:read', 'admin:read'])).toBe(true);
    expect(keyAllows(['gateway_proxy'], ['gateway:write'])).toBe(true);
    expect(keyAllows(['costs:read'], ['keys:read', 'admin:read'])).toBe(false);
    expect(keyAllows(['keys:read'], ['keys:write', 'admin:write'])).toBe(false);
    expect(keyAllows([], [])).toBe(true);
  });

  it('documents roles and scopes', () => {
    expect(describeAccess({ level: 'admin', scopes: ['keys:write', 'admin:write'] })).toBe(
      'Roles: Owner, Admin. API key scopes: keys:write or admin:write.',
    );
  });
});
