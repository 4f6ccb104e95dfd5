import { ACCESS_TOKEN_TTL_SECONDS, revokeAccessTokenFamily } from '@svc/auth';
import { asOrgId, hashPassword, normalizeEmail, OrgId, OrgRole, Repositories } from '@svc/domain';

/** The bounds sign-up and `BOOTSTRAP_ADMIN_PASSWORD` hold a password to. */
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 256;

/** Tokens issued this much before the access-token lifetime still count as recent, for clocks that differ. */
const CLOCK_SKEW_MS = 5 * 60_000;

export class PasswordResetError extends Error {
  constructor(
    readonly reason: 'unknown_user' | 'invalid_password',
    message: string,
  ) {
    super(message);
    this.name = 'PasswordResetError';
  }
}

export interface PasswordReset {
  userId: string;
  orgId: OrgId;
  email: string;
  role: OrgRole;
  /** Live refresh tokens ended (one per signed-in session). */
  sessionsEnded: number;
  /** Logins whose access tokens were revoked (those issued within an access token's lifetime). */
  loginsRevoked: number;
}

/** Why a password cannot be set, or null when it can. */
export function passwordProblem(password: string): string | null {
  if (password.length < PASSWORD_MIN_LENGTH) return `must be at least ${PASSWORD_MIN_LENGTH} characters (it has ${password.length})`;
  if (password.length > PASSWORD_MAX_LENGTH) return `must be at most ${PASSWORD_MAX_LENGTH} characters (it has ${password.length})`;
  if (/[\r\n]/.test(password)) return 'must be one line';
  return null;
}

/**
 * An operator's password reset (`npm run reset-password`, docs/deploy.md): sets the user's password,
 * hashed as every password is (Argon2id, `hashPassword`), then ends every session of the user, as
 * a logout would: the refresh tokens stop working, and so do the access tokens of recent logins
 * (revoked by family, since access tokens are checked without a lookup). Throws
 * PasswordResetError for an unknown e-mail or a password out of bounds, changing nothing.
 */
export async function resetPassword(
  repos: Pick<Repositories, 'users' | 'refreshTokens' | 'revokedAccessTokens'>,
  email: string,
  password: string,
  now = new Date(),
): Promise<PasswordReset> {
  const problem = passwordProblem(password);
  if (problem) throw new PasswordResetError('invalid_password', `The new password ${problem}`);
  const unknown = () => new PasswordResetError('unknown_user', `No user has the e-mail ${normalizeEmail(email)}`);
  const user = await repos.users.findByEmailForLogin(email);
  if (!user) throw unknown();
  const orgId = asOrgId(user.org_id);
  const passwordHash = await hashPassword(password);
  if (!(await repos.users.updateById(orgId, user._id, { password_hash: passwordHash }))) throw unknown();
  const recentSince = new Date(now.getTime() - ACCESS_TOKEN_TTL_SECONDS * 1000 - CLOCK_SKEW_MS);
  const { ended, recentFamilies } = await repos.refreshTokens.endAllForUser(orgId, user._id, recentSince, now);
  for (const family of recentFamilies) await revokeAccessTokenFamily(repos.revokedAccessTokens, family, now);
  return { userId: user._id, orgId, email: user.email, role: user.role, sessionsEnded: ended, loginsRevoked: recentFamilies.length };
}
