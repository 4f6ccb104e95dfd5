import { Inject, Injectable } from '@nestjs/common';
import {
  ACCESS_TOKEN_REVOCATIONS,
  AccessTokenRevocations,
  ACCESS_TOKEN_TTL_SECONDS,
  InvalidTokenError,
  REFRESH_TOKEN_TTL_SECONDS,
  RefreshClaims,
  revokeAccessTokenFamily,
  TokenService,
} from '@svc/auth';
import type { OrgId } from '@svc/domain';
import { asOrgId, DuplicateKeyError, hashPassword, Repositories, UserEntity, verifyPassword } from '@svc/domain';
import { APP_CONFIG, AppConfig, ConflictError, LOGGER, Logger } from '@svc/platform';
import { REPOSITORIES } from '@svc/runtime';
import { orgErrors } from '../common/org-errors';
import type { RegisterDto, TokenResponseDto } from './dto/auth.dto';
import { LoginThrottle } from './login-throttle';
import type { OrgPrincipal } from './org-principal';

const LOGIN_FAILED = 'Invalid e-mail or password';
const LOGGED_OUT = 'This session was logged out; sign in again';

/** Login, refresh-token rotation with reuse detection, logout and sign-up. */
@Injectable()
export class AuthService {
  /** A real hash to verify against when the e-mail is unknown, so both failures take as long. */
  private dummyHash: Promise<string> | null = null;

  constructor(
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(ACCESS_TOKEN_REVOCATIONS) private readonly revocations: AccessTokenRevocations,
    private readonly tokens: TokenService,
    private readonly throttle: LoginThrottle,
  ) {}

  async login(email: string, password: string, ip: string): Promise<TokenResponseDto> {
    // Counted before the password is checked, so parallel guesses cannot pass the limit.
    await this.throttle.attempt(email, ip);
    const user = await this.repositories.users.findByEmailForLogin(email);
    let ok = false;
    if (user) ok = await verifyPassword(user.password_hash, password);
    else await verifyPassword(await (this.dummyHash ??= hashPassword('not-a-real-password-0000')), password);
    if (!user || !ok) throw orgErrors.unauthorized(LOGIN_FAILED);
    await this.throttle.recordSuccess(email, ip);
    await this.repositories.users.recordLogin(asOrgId(user.org_id), user._id);
    return this.issueSession(user);
  }

  /**
   * Rotates a refresh token: the presented one is marked used (exactly once) and a new one of the
   * same family is returned. Presenting a used or revoked token again revokes the whole family,
   * except a token its login's logout ended (used, with no successor): that is a plain 401. A
   * logout racing the refresh wins: the repository's rotation never leaves the new token live
   * after the family was ended, and the refresh then answers the same "logged out" 401.
   */
  async refresh(refreshToken: string): Promise<TokenResponseDto> {
    const claims = this.verifyRefresh(refreshToken);
    const orgId = asOrgId(claims.org_id);
    const user = await this.repositories.users.findById(orgId, claims.sub);
    if (!user) {
      await this.revokeFamily(orgId, claims.fam);
      throw orgErrors.unauthorized('The user of this refresh token no longer exists');
    }
    const next = this.tokens.issueRefresh({ id: user._id, org_id: user.org_id }, claims.fam);
    // Signed before the rotation completes: a logout after it revokes the family's access tokens
    // for a full access-token lifetime from then, which covers this one.
    const access = this.tokens.issueAccess({ id: user._id, org_id: user.org_id, role: user.role, email: user.email }, claims.fam);
    const outcome = await this.repositories.refreshTokens.rotate(orgId, claims.jti, {
      id: next.claims.jti,
      user_id: user._id,
      family_id: claims.fam,
      ttl_ms: REFRESH_TOKEN_TTL_SECONDS * 1000,
    });
    if (outcome.status === 'ended') throw orgErrors.unauthorized(LOGGED_OUT, { reason: 'logged_out' });
    if (outcome.status === 'not_live') {
      const record = await this.repositories.refreshTokens.findById(orgId, claims.jti);
      if (!record) throw orgErrors.unauthorized('Invalid or expired refresh token');
      if (record.used_at && !record.replaced_by) throw orgErrors.unauthorized(LOGGED_OUT, { reason: 'logged_out' });
      const revoked = await this.revokeFamily(orgId, record.family_id);
      this.logger.warn({ org_id: orgId, user_id: user._id, family_id: record.family_id, revoked }, 'refresh token reuse: family revoked');
      throw orgErrors.unauthorized('This refresh token was already used or revoked; every session of this login has been revoked', {
        reason: 'refresh_token_reuse',
      });
    }
    return { access_token: access.token, refresh_token: next.token, token_type: 'bearer', expires_in: ACCESS_TOKEN_TTL_SECONDS };
  }

  /**
   * Ends a session (SPEC.md: logout "invalidates both tokens"): the caller's access token is
   * revoked, and so is its login's refresh-token family (the access token's `fam` claim), so the
   * refresh token stops working whether or not it is sent. A `refresh_token` in the body, when it
   * is the caller's own, has its family revoked too (a token of another login of the same user).
   */
  async logout(principal: OrgPrincipal, refreshToken: string | undefined): Promise<void> {
    if (principal.token) {
      await this.revocations.revoke(principal.token.jti, new Date(principal.token.exp * 1000));
      if (principal.token.fam) await this.endLogin(principal.orgId, principal.token.fam);
    }
    if (!refreshToken) return;
    let claims: RefreshClaims;
    try {
      claims = this.tokens.verify(refreshToken, 'refresh');
    } catch {
      return;
    }
    if (claims.sub !== principal.userId || claims.org_id !== principal.orgId || claims.fam === principal.token?.fam) return;
    await this.endLogin(principal.orgId, claims.fam);
  }

  /** DECISIONS.md "More organizations and members": a new organization (free, active) and its Owner. */
  async register(input: RegisterDto): Promise<TokenResponseDto> {
    if (!this.config.SIGNUP_ENABLED) throw orgErrors.notFound('Route POST /api/v1/auth/register');
    const passwordHash = await hashPassword(input.password);
    const organization = await this.repositories.organizations.create({ name: input.org_name.trim(), plan: 'free', subscription_status: 'active' });
    const orgId = asOrgId(organization._id);
    let user: UserEntity;
    try {
      user = await this.repositories.users.create(orgId, { email: input.email, role: 'Owner', password_hash: passwordHash, name: input.name ?? null });
    } catch (error) {
      await this.repositories.organizations.delete(orgId);
      if (error instanceof DuplicateKeyError) {
        throw new ConflictError('resource_already_exists', 'An account with this e-mail already exists', { resource_type: 'user' });
      }
      throw error;
    }
    return this.issueSession(user);
  }

  /**
   * Logout of one login: its live refresh tokens are marked used with no successor (`replaced_by`
   * null) and the family revoked, in the repository's `endFamily`, which also ends a successor a
   * racing refresh records meanwhile; then the family's access tokens are revoked. Presenting a
   * refresh token of it later reads as "logged out" rather than as reuse of a rotated token.
   */
  private async endLogin(orgId: OrgId, family: string): Promise<void> {
    await this.repositories.refreshTokens.endFamily(orgId, family);
    await revokeAccessTokenFamily(this.revocations, family);
  }

  /** Revokes a login: its refresh tokens, and every access token issued in it (at once, on every replica). */
  private async revokeFamily(orgId: OrgId, family: string): Promise<number> {
    const revoked = await this.repositories.refreshTokens.revokeFamily(orgId, family);
    await revokeAccessTokenFamily(this.revocations, family);
    return revoked;
  }

  private async issueSession(user: UserEntity): Promise<TokenResponseDto> {
    const refresh = this.tokens.issueRefresh({ id: user._id, org_id: user.org_id });
    const access = this.tokens.issueAccess({ id: user._id, org_id: user.org_id, role: user.role, email: user.email }, refresh.claims.fam);
    await this.repositories.refreshTokens.issueWithId(asOrgId(user.org_id), refresh.claims.jti, {
      user_id: user._id,
      family_id: refresh.claims.fam,
      ttl_ms: REFRESH_TOKEN_TTL_SECONDS * 1000,
    });
    return { access_token: access.token, refresh_token: refresh.token, token_type: 'bearer', expires_in: ACCESS_TOKEN_TTL_SECONDS };
  }

  private verifyRefresh(token: string): RefreshClaims {
    try {
      return this.tokens.verify(token, 'refresh');
    } catch (error) {
      throw orgErrors.unauthorized(error instanceof InvalidTokenError ? `Invalid refresh token: ${error.message}` : 'Invalid refresh token');
    }
  }
}
