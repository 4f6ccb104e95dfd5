import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiOperation, ApiSecurity } from '@nestjs/swagger';
import type { Role } from '@svc/auth';

/**
 * Who may call a route of the organization API.
 * - `public`: no credentials (login, refresh, register).
 * - `optional`: credentials are read when sent (and must then be valid), not required (`/api/v1/health`).
 * - `read`: every role (Member and up), API keys with one of the route's scopes.
 * - `operate`: Manager and Operator and up (Owner, Admin), API keys with one of the route's scopes.
 * - `admin`: Owner and Admin, API keys with one of the route's scopes.
 * - `user`: a signed-in user (dashboard access token) only; API keys are refused (logout).
 */
export type AccessLevel = 'public' | 'optional' | 'read' | 'operate' | 'admin' | 'user';

export interface AccessRule {
  level: AccessLevel;
  /** An API key needs at least one of these (a `:write` scope implies its `:read`); empty: any valid key. */
  scopes: string[];
}

export const ORG_ACCESS = 'svc:org-access';

const ROLE_LEVELS: Record<'read' | 'operate' | 'admin' | 'user', readonly Role[]> = {
  read: ['Owner', 'Admin', 'Manager', 'Operator', 'Member'],
  user: ['Owner', 'Admin', 'Manager', 'Operator', 'Member'],
  operate: ['Owner', 'Admin', 'Manager', 'Operator'],
  admin: ['Owner', 'Admin'],
};

const LEVEL_TEXT: Record<AccessLevel, string> = {
  public: 'No authentication.',
  optional: 'Authentication optional (organization figures only with credentials).',
  read: 'Roles: every role (Owner, Admin, Manager, Operator, Member).',
  operate: 'Roles: Owner, Admin, Manager, Operator.',
  admin: 'Roles: Owner, Admin.',
  user: 'A signed-in user (Authorization: Bearer <ACCESS_TOKEN>); API keys are not accepted.',
};

/** Whether a role may use a route of that level. */
export function roleAllows(role: Role, level: AccessLevel): boolean {
  if (level === 'public' || level === 'optional') return true;
  return ROLE_LEVELS[level].includes(role);
}

/** Whether an API key's scopes satisfy a route (shared with the API key service, @svc/org-resources). */
export { keyAllows } from '@svc/org-resources';

/** The OpenAPI description line naming a route's roles and scopes. */
export function describeAccess(rule: AccessRule): string {
  const keys =
    rule.level === 'public' || rule.level === 'user'
      ? ''
      : rule.scopes.length
        ? ` API key scopes: ${rule.scopes.join(' or ')}.`
        : ' API keys: any valid key of the organization.';
  return `${LEVEL_TEXT[rule.level]}${keys}`;
}

/** SPEC.md "Organization API tokens": the organization context header, read by OrgAuthGuard on every authenticated route. */
const ORG_ID_HEADER = ApiHeader({
  name: 'X-Org-ID',
  required: false,
  description:
    "The organization to act for. Optional: the access token's `org_id` claim or the API key's organization comes first; " +
    'naming another organization is 403 `FORBIDDEN` (`details.reason` `org_mismatch`).',
});

/**
 * Declares a route's access rule and documents it: the OpenAPI description starts with the roles
 * and API key scopes the route needs, followed by `description`; authenticated routes list `X-Org-ID`.
 */
export function OrgRoute(options: { summary: string; description?: string; level: AccessLevel; scopes?: string[] }) {
  const rule: AccessRule = { level: options.level, scopes: options.scopes ?? [] };
  const text = [describeAccess(rule), options.description].filter(Boolean).join('\n\n');
  const decorators = [SetMetadata(ORG_ACCESS, rule), ApiOperation({ summary: options.summary, description: text })];
  if (rule.level !== 'public') decorators.push(ApiBearerAuth(), ORG_ID_HEADER);
  if (rule.level !== 'public' && rule.level !== 'user') decorators.push(ApiSecurity('gateway-key'));
  return applyDecorators(...decorators);
}
