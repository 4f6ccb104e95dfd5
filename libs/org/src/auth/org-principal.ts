import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import type { FastifyRequest } from 'fastify';

/** The caller of an organization API route: a user (dashboard access token) or an API key. */
export interface OrgPrincipal extends Principal {
  /** The access token's id, expiry and refresh-token family (users only), for logout. */
  token: { jti: string; exp: number; fam: string | null } | null;
}

export interface OrgRequest extends FastifyRequest {
  principal?: OrgPrincipal;
}

/** The authenticated caller; undefined on `optional` routes called without credentials. */
export const Caller = createParamDecorator((_data: unknown, ctx: ExecutionContext): OrgPrincipal | undefined => {
  return ctx.switchToHttp().getRequest<OrgRequest>().principal;
});
