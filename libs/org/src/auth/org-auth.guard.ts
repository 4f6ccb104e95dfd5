import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { classifyGatewayToken, clientIp, GatewayKeyAuthenticator, header } from '@svc/auth';
import { APP_CONFIG, AppConfig, GatewayError } from '@svc/platform';
import type { FastifyReply } from 'fastify';
import { AccessRule, keyAllows, ORG_ACCESS, roleAllows } from '../common/org-access';
import { orgErrors } from '../common/org-errors';
import { OrgJwtStrategy } from './org-jwt.strategy';
import type { OrgPrincipal, OrgRequest } from './org-principal';
import { OrgRateLimiter } from './org-rate-limiter';

const MISSING = 'Missing credentials: send Authorization: Bearer <ACCESS_TOKEN>, or an API key in X-API-Key';

/**
 * Authentication and authorization of the organization API, in this order:
 * 1. credentials: an API key (`X-API-Key`, `X-SVC-API-Key`, or `Authorization: Bearer` with a
 *    gateway prefix) through GatewayKeyAuthenticator, else a dashboard access token through the
 *    passport-jwt strategy;
 * 2. organization context (SPEC.md order): the credential's organization, then `X-Org-ID` (another
 *    organization: 403), then the `{org_id}` path parameter (another organization: 404);
 * 3. the per-organization rate limit (429 `RATE_LIMIT_EXCEEDED`);
 * 4. the route's rule: roles for users, scopes for API keys (403 `FORBIDDEN`).
 * Routes without a rule are refused unless authenticated as Owner/Admin (deny by default).
 */
@Injectable()
export class OrgAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: GatewayKeyAuthenticator,
    private readonly strategy: OrgJwtStrategy,
    private readonly limiter: OrgRateLimiter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const rule = this.reflector.getAllAndOverride<AccessRule | undefined>(ORG_ACCESS, [context.getHandler(), context.getClass()]) ?? {
      level: 'admin',
      scopes: [],
    };
    if (rule.level === 'public') return true;
    const http = context.switchToHttp();
    const request = http.getRequest<OrgRequest>();
    const reply = http.getResponse<FastifyReply>();
    const apiKey = this.apiKeyOf(request);
    const hasBearer = /^Bearer\s+\S+/i.test(String(request.headers.authorization ?? ''));
    if (!apiKey && !hasBearer) {
      if (rule.level === 'optional') return true;
      throw orgErrors.unauthorized(MISSING);
    }
    const principal = apiKey ? await this.authenticateKey(request, reply, apiKey) : await this.authenticateJwt(request, reply);
    this.checkOrganizationContext(request, principal);
    await this.rateLimit(principal, reply);
    this.authorize(rule, principal);
    request.principal = principal;
    return true;
  }

  private apiKeyOf(request: OrgRequest): string | undefined {
    const explicit = header(request.headers, 'x-api-key') ?? header(request.headers, 'x-svc-api-key');
    if (explicit) return explicit;
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(String(request.headers.authorization ?? ''))?.[1];
    return bearer && classifyGatewayToken(bearer) ? bearer : undefined;
  }

  private async authenticateKey(request: OrgRequest, reply: FastifyReply, value: string): Promise<OrgPrincipal> {
    const kind = classifyGatewayToken(value);
    if (kind === 'retired') throw orgErrors.unauthorized('API keys with a retired beta prefix are no longer accepted');
    const ip = clientIp(request.socket.remoteAddress ?? request.ip, request.headers['x-forwarded-for'], this.config.TRUSTED_PROXIES);
    try {
      const principal = await this.authenticator.authenticate({ value, location: 'x-api-key', kind: kind ?? 'gateway' }, ip);
      if (principal.deprecation) {
        reply.header('X-SVC-Key-Deprecated', 'true');
        reply.header('X-SVC-Grace-Remaining-Hours', String(principal.deprecation.graceRemainingHours));
      }
      return { ...principal, token: null };
    } catch (error) {
      if (error instanceof GatewayError) {
        const details = { reason: error.body.code };
        throw error.status === 403 ? orgErrors.forbidden(error.body.message, details) : orgErrors.unauthorized(error.body.message, details);
      }
      throw error;
    }
  }

  /** Runs the passport-jwt strategy (its own Passport instance) and maps its failures to 401. */
  private authenticateJwt(request: OrgRequest, reply: FastifyReply): Promise<OrgPrincipal> {
    return new Promise<OrgPrincipal>((resolve, reject) => {
      const middleware = this.strategy.getPassportInstance().authenticate(
        'jwt',
        { session: false },
        (error: unknown, user: OrgPrincipal | false, info: unknown) => {
          if (error) reject(error);
          else if (!user) reject(orgErrors.unauthorized(describeJwtFailure(info)));
          else resolve(user);
        },
      ) as (req: unknown, res: unknown, next: (error?: unknown) => void) => void;
      middleware(request, reply, (error?: unknown) => reject(error ?? orgErrors.unauthorized()));
    });
  }

  private checkOrganizationContext(request: OrgRequest, principal: OrgPrincipal): void {
    const headerOrg = header(request.headers, 'x-org-id');
    if (headerOrg !== undefined && headerOrg !== principal.orgId) {
      throw orgErrors.forbidden('X-Org-ID names an organization this credential does not belong to', { reason: 'org_mismatch' });
    }
    const pathOrg = (request.params as Record<string, string> | undefined)?.org_id;
    if (pathOrg !== undefined && pathOrg !== principal.orgId) throw orgErrors.notFound('Organization', pathOrg);
  }

  private async rateLimit(principal: OrgPrincipal, reply: FastifyReply): Promise<void> {
    const decision = await this.limiter.hit(principal.orgId);
    const headers = {
      'X-RateLimit-Limit': String(decision.limit),
      'X-RateLimit-Remaining': String(decision.remaining),
      'X-RateLimit-Reset': String(decision.resetAt),
    };
    if (!decision.allowed) {
      throw orgErrors.rateLimited(
        `Rate limit exceeded: ${decision.count}/${decision.limit} requests per minute for this organization`,
        decision.retryAfter,
        headers,
      );
    }
    for (const [name, value] of Object.entries(headers)) reply.header(name, value);
  }

  private authorize(rule: AccessRule, principal: OrgPrincipal): void {
    if (principal.kind === 'dashboard') {
      if (principal.role && roleAllows(principal.role, rule.level)) return;
      throw orgErrors.forbidden(`Your role (${principal.role ?? 'none'}) cannot do this`, { required: requiredRoles(rule) });
    }
    if (rule.level === 'user') throw orgErrors.forbidden('This route needs a signed-in user, not an API key');
    if (keyAllows(principal.scopes, rule.scopes)) return;
    throw orgErrors.forbidden(`This API key lacks the scope for this route (one of ${rule.scopes.join(', ')})`, {
      required_scopes: rule.scopes,
    });
  }
}

function requiredRoles(rule: AccessRule): string {
  if (rule.level === 'admin') return 'Owner or Admin';
  if (rule.level === 'operate') return 'Owner, Admin, Manager or Operator';
  return 'any role';
}

function describeJwtFailure(info: unknown): string {
  const name = (info as { name?: string } | undefined)?.name;
  if (name === 'TokenExpiredError') return 'Token expired';
  if (info instanceof Error && info.message === 'No auth token') return MISSING;
  return 'Invalid token';
}
