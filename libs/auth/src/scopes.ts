/** Scopes of gateway keys and organization API keys (SPEC.md "Authentication"). */
export const GATEWAY_SCOPES = ['gateway:write', 'gateway:read', 'admin:write', 'admin:read', 'billing:read'] as const;
export const ORG_SCOPES = ['agents:read', 'workflows:read', 'workflows:execute', 'costs:read', 'webhooks:read', 'webhooks:write', 'budgets:read', 'budgets:write', 'keys:read', 'keys:write'] as const;
export const RUNNER_PERMISSIONS = ['runner:read', 'runner:create', 'runner:start_session', 'runner:stop_session', 'runner:exec', 'runner:terminate'] as const;
/** Names that role-derived scope sets carry (SPEC.md "Dashboard JWT fallback"). */
export const ROLE_SCOPE_NAMES = ['gateway_admin', 'gateway_operator', 'gateway_viewer'] as const;
/** Accepted on input, stored as their canonical scope (DECISIONS.md). */
export const SCOPE_ALIASES: Readonly<Record<string, string>> = { gateway_proxy: 'gateway:write' };

export const KNOWN_SCOPES: ReadonlySet<string> = new Set<string>([
  ...GATEWAY_SCOPES,
  ...ORG_SCOPES,
  ...RUNNER_PERMISSIONS,
  ...Object.keys(SCOPE_ALIASES),
]);

export type Role = 'Owner' | 'Admin' | 'Manager' | 'Operator' | 'Member';
export const ROLES: readonly Role[] = ['Owner', 'Admin', 'Manager', 'Operator', 'Member'];

/** Canonical form of a scope list: aliases resolved, duplicates dropped, order kept. */
export function normalizeScopes(scopes: readonly string[]): string[] {
  return [...new Set(scopes.map((scope) => SCOPE_ALIASES[scope] ?? scope))];
}

/** The scopes a list does not know, for a 400 that names them. */
export function unknownScopes(scopes: readonly string[]): string[] {
  return scopes.filter((scope) => !KNOWN_SCOPES.has(scope));
}

/** SPEC.md "Dashboard JWT fallback": scopes a dashboard token carries for its role. */
export function scopesForRole(role: Role): string[] {
  switch (role) {
    case 'Owner':
    case 'Admin':
      return ['gateway_admin', 'gateway:write', 'gateway:read', 'admin:write', 'admin:read', 'billing:read', ...runnerPermissionsForRole(role)];
    case 'Manager':
    case 'Operator':
      return ['gateway_operator', 'gateway:write', 'gateway:read', 'admin:read', 'billing:read', ...runnerPermissionsForRole(role)];
    default:
      return ['gateway_viewer', 'gateway:read', 'admin:read', 'billing:read', ...runnerPermissionsForRole(role)];
  }
}

/**
 * SPEC.md runner RBAC: `runner:read` for Viewer, Operator and Admin; create, start/stop session
 * and exec for Operator and Admin; terminate for Admin only. Owner counts as Admin, Manager as
 * Operator and Member as Viewer.
 */
export function runnerPermissionsForRole(role: Role): string[] {
  if (role === 'Owner' || role === 'Admin') return [...RUNNER_PERMISSIONS];
  if (role === 'Manager' || role === 'Operator') return RUNNER_PERMISSIONS.filter((p) => p !== 'runner:terminate');
  return ['runner:read'];
}

/**
 * Whether a set of granted scopes allows `required`. A write scope implies its read scope. A
 * gateway key has no role, so for the runner routes its admin scopes stand in: `admin:read`
 * grants `runner:read`, `admin:write` grants every runner permission.
 */
export function hasScope(granted: readonly string[], required: string): boolean {
  const set = new Set(normalizeScopes(granted));
  if (set.has(required)) return true;
  if (required === 'admin:read' && set.has('admin:write')) return true;
  if (required === 'gateway:read' && set.has('gateway:write')) return true;
  if (required.startsWith('runner:')) {
    if (required === 'runner:read') return set.has('admin:read') || set.has('admin:write');
    return set.has('admin:write');
  }
  return false;
}
