import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply } from 'fastify';
import { asOrgId, type Repositories } from '@svc/domain';
import { APP_CONFIG, AppConfig, GatewayError } from '@svc/platform';
import { REPOSITORIES } from '@svc/runtime';
import { clientIp } from '../client-ip';
import { GATEWAY_KEY_LOCATIONS, parseCredentials } from '../credentials';
import { checkOrgHeader } from '../org-header';
import { GatewayKeyAuthenticator } from '../gateway-key-authenticator';
import { Principal } from '../principal';
import { hasScope, Role, scopesForRole } from '../scopes';
import { AccessClaims, InvalidTokenError, TokenService } from '../tokens';
import { ACCESS_TOKEN_REVOCATIONS, AccessTokenRevocations, isAccessTokenRevoked } from './access-token-revocations';
import { AuthenticatedRequest, REQUIRED_SCOPES } from './decorators';

/** 401 GW_AUTH_001 (no or malformed credentials) or GW_AUTH_002 (an invalid, expired or revoked dashboard token). */
const unauthenticated = (message: string, gatewayErrorCode: 'GW_AUTH_001' | 'GW_AUTH_002' = 'GW_AUTH_001') =>
  new GatewayError(401, {
    message,
    type: 'authentication_error',
    code: 'invalid_api_key',
    gateway_error_code: gatewayErrorCode,
    remediation:
      gatewayErrorCode === 'GW_AUTH_001'
        ? `Send a gateway key in ${GATEWAY_KEY_LOCATIONS}, or a dashboard access token as Authorization: Bearer <ACCESS_TOKEN>.`
        : 'Sign in again (POST /api/v1/auth/login or /api/v1/auth/refresh) for a new access token, or use a gateway key.',
  });

/**
 * Authentication of the gateway admin surfaces (SPEC.md "Dashboard JWT fallback"): a gateway key,
 * or else a dashboard access token whose role gives the scopes. Then the route's scopes are checked.
 */
@Injectable()
export class GatewayAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: GatewayKeyAuthenticator,
    private readonly tokens: TokenService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(ACCESS_TOKEN_REVOCATIONS) private readonly revocations: AccessTokenRevocations,
    @Inject(REPOSITORIES) private readonly repositories: Pick<Repositories, 'users'>,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<AuthenticatedRequest>();
    const required = this.reflector.getAllAndOverride<string[] | undefined>(REQUIRED_SCOPES, [context.getHandler(), context.getClass()]) ?? [];
    const principal = await this.authenticate(request);
    const missing = required.filter((scope) => !hasScope(principal.scopes, scope));
    if (missing.length) {
      throw new GatewayError(403, {
        message: `This route needs the scope ${missing.join(', ')}`,
        type: 'permission_error',
        code: 'insufficient_scope',
        remediation: `Use a key or a role that carries ${missing.join(', ')}.`,
      });
    }
    request.principal = principal;
    if (principal.deprecation) {
      const reply = http.getResponse<FastifyReply>();
      reply.header('X-SVC-Key-Deprecated', 'true');
      reply.header('X-SVC-Grace-Remaining-Hours', String(principal.deprecation.graceRemainingHours));
    }
    return true;
  }

  private async authenticate(request: AuthenticatedRequest): Promise<Principal> {
    const credentials = parseCredentials({ headers: request.headers, query: request.query as Record<string, unknown> });
    if (credentials.gatewayKey) {
      const ip = clientIp(request.socket.remoteAddress ?? request.ip, request.headers['x-forwarded-for'], this.config.TRUSTED_PROXIES);
      const principal = await this.authenticator.authenticate(credentials.gatewayKey, ip);
      checkOrgHeader(request.headers, principal.orgId, 'key');
      return principal;
    }
    const bearer = /^Bearer\s+(\S+)$/i.exec(String(request.headers.authorization ?? ''))?.[1];
    if (!bearer) throw unauthenticated(`Missing credentials: send a gateway key in ${GATEWAY_KEY_LOCATIONS}`);
    if (!TokenService.looksLikeJwt(bearer)) throw unauthenticated('The bearer token is neither a gateway key nor a dashboard access token');
    let claims: AccessClaims;
    try {
      claims = this.tokens.verify(bearer, 'access');
    } catch (error) {
      throw unauthenticated(error instanceof InvalidTokenError ? error.message : 'Invalid token', 'GW_AUTH_002');
    }
    if (await isAccessTokenRevoked(this.revocations, claims)) throw unauthenticated('This access token was revoked (logged out)', 'GW_AUTH_002');
    checkOrgHeader(request.headers, claims.org_id, 'token');
    // The user's current role, as on the organization API: a removed member or a changed role takes effect at once.
    const [organization, user] = await Promise.all([this.authenticator.organization(claims.org_id), this.repositories.users.findById(asOrgId(claims.org_id), claims.sub)]);
    if (!organization || !user) throw unauthenticated('The user or organization of this token no longer exists', 'GW_AUTH_002');
    return {
      kind: 'dashboard',
      orgId: organization._id as Principal['orgId'],
      organization,
      scopes: scopesForRole(user.role as Role),
      keyId: null,
      keyName: null,
      teamId: null,
      userId: user._id,
      role: user.role as Role,
      deprecation: null,
    };
  }
}
