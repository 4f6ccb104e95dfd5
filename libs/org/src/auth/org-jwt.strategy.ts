import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { ACCESS_TOKEN_REVOCATIONS, AccessTokenRevocations, GatewayKeyAuthenticator, isAccessTokenRevoked, scopesForRole, TOKEN_ALGORITHM } from '@svc/auth';
import { asOrgId, Repositories } from '@svc/domain';
import { APP_CONFIG, AppConfig } from '@svc/platform';
import { INSTANCE_SECRETS, InstanceSecrets, REPOSITORIES } from '@svc/runtime';
import passport from 'passport';
import { ExtractJwt, Strategy } from 'passport-jwt';
import { orgErrors } from '../common/org-errors';
import type { OrgPrincipal } from './org-principal';

interface AccessPayload {
  sub?: unknown;
  org_id?: unknown;
  typ?: unknown;
  jti?: unknown;
  exp?: unknown;
  fam?: unknown;
}

/** Each strategy instance gets its own Passport, so two apps in one process never share a secret. */
type PassportInstance = InstanceType<typeof passport.Passport>;
const instances = new WeakMap<object, PassportInstance>();

/**
 * passport-jwt strategy of the organization API: the bearer token must verify with the instance's
 * JWT secret, HS256 only (so `alg: none` and other algorithms are refused), the configured `iss`
 * and `aud`, and not be expired; then it must be an access token (`typ`), not revoked (by itself
 * on logout, or through its refresh-token family `fam` on logout and on refresh-token reuse), and
 * its user and organization must still exist. The user's current role is read from the store,
 * so a role change or a removed member takes effect at once.
 */
@Injectable()
export class OrgJwtStrategy extends PassportStrategy(Strategy) {
  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(INSTANCE_SECRETS) secrets: InstanceSecrets,
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    private readonly authenticator: GatewayKeyAuthenticator,
    @Inject(ACCESS_TOKEN_REVOCATIONS) private readonly revocations: AccessTokenRevocations,
  ) {
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      secretOrKey: secrets.jwtSecret,
      algorithms: [TOKEN_ALGORITHM],
      issuer: config.JWT_ISSUER,
      audience: config.JWT_AUDIENCE,
      ignoreExpiration: false,
    });
  }

  /** Replaces @nestjs/passport's global Passport by one private to this strategy instance. */
  getPassportInstance(): PassportInstance {
    let instance = instances.get(this);
    if (!instance) {
      instance = new passport.Passport();
      instances.set(this, instance);
    }
    return instance;
  }

  async validate(payload: AccessPayload): Promise<OrgPrincipal> {
    const { sub, org_id: orgId, typ, jti, exp, fam } = payload;
    if (typ !== 'access') throw orgErrors.unauthorized('Not an access token');
    if (typeof sub !== 'string' || typeof orgId !== 'string' || !orgId || typeof jti !== 'string' || typeof exp !== 'number') {
      throw orgErrors.unauthorized('Invalid token');
    }
    if (fam !== undefined && typeof fam !== 'string') throw orgErrors.unauthorized('Invalid token');
    if (await isAccessTokenRevoked(this.revocations, { jti, fam })) {
      throw orgErrors.unauthorized('This access token was revoked (logged out, or its login was revoked)');
    }
    const [user, organization] = await Promise.all([
      this.repositories.users.findById(asOrgId(orgId), sub),
      this.authenticator.organization(orgId),
    ]);
    if (!user || !organization) throw orgErrors.unauthorized('The user or organization of this token no longer exists');
    return {
      kind: 'dashboard',
      orgId: asOrgId(organization._id),
      organization,
      scopes: scopesForRole(user.role),
      keyId: null,
      keyName: null,
      teamId: null,
      userId: user._id,
      role: user.role,
      deprecation: null,
      token: { jti, exp, fam: fam ?? null },
    };
  }
}
