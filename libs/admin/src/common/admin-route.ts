import { applyDecorators, Controller, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { GatewayAuthGuard, RequireScopes } from '@svc/auth';
import { ApiOrgIdHeader } from '@svc/platform';

/** The scopes of the admin surface (SPEC.md "Gateway key" scopes, docs/admin-api.md). */
export type AdminScope = 'admin:read' | 'admin:write' | 'billing:read';

/**
 * An admin controller: the full path under `/gateway/admin`, GatewayAuthGuard (a gateway key or a
 * dashboard access token) and the OpenAPI tag, security schemes and optional `X-Org-ID` header.
 */
export function AdminController(path: string, tag: string): ClassDecorator {
  return AdminControllerAt(`gateway/admin/${path}`, tag);
}

/** An admin controller at a full path: SPEC.md's `/v1/admin/...` routes, authenticated like every admin route. */
export function AdminControllerAt(fullPath: string, tag: string): ClassDecorator {
  return applyDecorators(ApiTags(tag), ApiSecurity('gateway-key'), ApiBearerAuth(), ApiOrgIdHeader(), Controller(fullPath), UseGuards(GatewayAuthGuard));
}

/**
 * One admin route: the scope GatewayAuthGuard checks and the OpenAPI operation, whose description
 * starts with the scope so `/docs` tells every caller what a route needs.
 */
export function AdminRoute(scope: AdminScope, summary: string, description = ''): MethodDecorator {
  return applyDecorators(RequireScopes(scope), ApiOperation({ summary, description: `Scope: \`${scope}\`.${description ? ` ${description}` : ''}` }));
}
