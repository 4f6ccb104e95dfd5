import { hasScope, normalizeScopes, runnerPermissionsForRole, scopesForRole, unknownScopes } from './scopes';

describe('scopes', () => {
  it('derives scopes from roles as SPEC.md tabulates', () => {
    expect(scopesForRole('Owner')).toEqual(expect.arrayContaining(['gateway_admin', 'gateway:write', 'gateway:read', 'admin:write', 'admin:read', 'billing:read']));
    expect(scopesForRole('Operator')).toEqual(expect.arrayContaining(['gateway_operator', 'gateway:write', 'gateway:read', 'admin:read', 'billing:read']));
    expect(scopesForRole('Operator')).not.toContain('admin:write');
    expect(scopesForRole('Member')).toEqual(expect.arrayContaining(['gateway_viewer', 'gateway:read', 'admin:read', 'billing:read']));
    expect(scopesForRole('Member')).not.toContain('gateway:write');
  });

  it('applies the runner RBAC table', () => {
    expect(runnerPermissionsForRole('Member')).toEqual(['runner:read']);
    expect(runnerPermissionsForRole('Operator')).toContain('runner:exec');
    expect(runnerPermissionsForRole('Operator')).not.toContain('runner:terminate');
    expect(runnerPermissionsForRole('Admin')).toContain('runner:terminate');
  });

  it('accepts gateway_proxy as an alias of gateway:write', () => {
    expect(normalizeScopes(['gateway_proxy', 'gateway:write'])).toEqual(['gateway:write']);
    expect(hasScope(['gateway_proxy'], 'gateway:write')).toBe(true);
  });

  it('lets a write scope imply its read scope and nothing more', () => {
    expect(hasScope(['admin:write'], 'admin:read')).toBe(true);
    expect(hasScope(['admin:read'], 'admin:write')).toBe(false);
    expect(hasScope(['gateway:read'], 'gateway:write')).toBe(false);
    expect(hasScope(['billing:read'], 'admin:read')).toBe(false);
  });

  it('names unknown scopes', () => {
    expect(unknownScopes(['gateway:write', 'root', 'costs:read'])).toEqual(['root']);
  });
});
