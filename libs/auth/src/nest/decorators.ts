import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { Principal } from '../principal';

export const REQUIRED_SCOPES = 'svc:required-scopes';

/** The scopes a route needs (all of them). Read by GatewayAuthGuard. */
export const RequireScopes = (...scopes: string[]) => SetMetadata(REQUIRED_SCOPES, scopes);

export interface AuthenticatedRequest extends FastifyRequest {
  principal?: Principal;
}

/** The Principal GatewayAuthGuard attached to the request. */
export const CurrentPrincipal = createParamDecorator((_data: unknown, ctx: ExecutionContext): Principal => {
  const principal = ctx.switchToHttp().getRequest<AuthenticatedRequest>().principal;
  if (!principal) throw new Error('CurrentPrincipal used on a route without GatewayAuthGuard');
  return principal;
});
