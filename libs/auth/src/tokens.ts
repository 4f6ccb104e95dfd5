import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { Role } from './scopes';

export type TokenType = 'access' | 'refresh';

export const ACCESS_TOKEN_TTL_SECONDS = 30 * 60;
export const REFRESH_TOKEN_TTL_SECONDS = 7 * 24 * 60 * 60;
/** The one algorithm tokens are signed and verified with; `alg: none` and others are refused. */
export const TOKEN_ALGORITHM = 'HS256';

export interface AccessClaims {
  sub: string;
  org_id: string;
  org_role: Role;
  email: string;
  typ: 'access';
  /** The refresh-token family (the login) the token was issued in; revoking the family revokes the token. */
  fam?: string;
  jti: string;
  iat: number;
  exp: number;
}

export interface RefreshClaims {
  sub: string;
  org_id: string;
  typ: 'refresh';
  /** All refresh tokens descended from one login share a family; reuse of a rotated one revokes it. */
  fam: string;
  jti: string;
  iat: number;
  exp: number;
}

export interface TokenSettings {
  secret: string;
  issuer: string;
  audience: string;
}

/** Thrown for any token that does not verify; the message is safe to show. */
export class InvalidTokenError extends Error {
  constructor(message = 'Invalid or expired token') {
    super(message);
    this.name = 'InvalidTokenError';
  }
}

/** Signs and verifies the organization API's JWTs (HS256 pinned, `iss`, `aud` and a token type). */
export class TokenService {
  constructor(private readonly settings: TokenSettings) {}

  /** `family`: the refresh-token family of the session (the `fam` claim), so a logout or reuse detection revokes this token too. */
  issueAccess(user: { id: string; org_id: string; role: Role; email: string }, family?: string): { token: string; claims: AccessClaims } {
    const jti = randomUUID();
    const payload = { org_id: user.org_id, org_role: user.role, email: user.email, typ: 'access', ...(family ? { fam: family } : {}) };
    const token = jwt.sign(payload, this.settings.secret, {
      algorithm: TOKEN_ALGORITHM,
      subject: user.id,
      issuer: this.settings.issuer,
      audience: this.settings.audience,
      expiresIn: ACCESS_TOKEN_TTL_SECONDS,
      jwtid: jti,
    });
    return { token, claims: this.verify(token, 'access') as AccessClaims };
  }

  issueRefresh(user: { id: string; org_id: string }, family: string = randomUUID()): { token: string; claims: RefreshClaims } {
    const jti = randomUUID();
    const token = jwt.sign({ org_id: user.org_id, typ: 'refresh', fam: family }, this.settings.secret, {
      algorithm: TOKEN_ALGORITHM,
      subject: user.id,
      issuer: this.settings.issuer,
      audience: this.settings.audience,
      expiresIn: REFRESH_TOKEN_TTL_SECONDS,
      jwtid: jti,
    });
    return { token, claims: this.verify(token, 'refresh') as RefreshClaims };
  }

  verify(token: string, type: 'access'): AccessClaims;
  verify(token: string, type: 'refresh'): RefreshClaims;
  verify(token: string, type: TokenType): AccessClaims | RefreshClaims;
  verify(token: string, type: TokenType): AccessClaims | RefreshClaims {
    let payload: jwt.JwtPayload | string;
    try {
      payload = jwt.verify(token, this.settings.secret, {
        algorithms: [TOKEN_ALGORITHM],
        issuer: this.settings.issuer,
        audience: this.settings.audience,
      });
    } catch (error) {
      throw new InvalidTokenError(error instanceof jwt.TokenExpiredError ? 'Token expired' : 'Invalid token');
    }
    if (typeof payload === 'string' || payload.typ !== type || !payload.sub || !payload.jti || typeof payload.org_id !== 'string') {
      throw new InvalidTokenError(type === 'access' ? 'Not an access token' : 'Not a refresh token');
    }
    return payload as unknown as AccessClaims | RefreshClaims;
  }

  /** A cheap shape test: three base64url parts. Used to tell a JWT from an API key in a Bearer header. */
  static looksLikeJwt(token: string): boolean {
    return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token);
  }
}
