import { generateKeyPairSync, randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { asOrgId, REFRESH_TOKENS } from '@svc/domain';
import { Json, OrgApi, OWNER_EMAIL, OWNER_PASSWORD, Session } from './org-api.helpers';

describe('org API authentication', () => {
  let api: OrgApi;
  let owner: Session;
  let secret: string;
  beforeAll(async () => {
    api = await OrgApi.boot({ SIGNUP_ENABLED: 'true' });
    owner = await api.loginOwner();
    secret = api.service.runtime.secrets.jwtSecret;
  });
  afterAll(() => api.stop());

  const profile = (token: string, headers: Record<string, string> = {}) => api.call('GET', '/api/v1/user/profile', { token, headers });
  const refresh = (token: string) => api.call('POST', '/api/v1/auth/refresh', { body: { refresh_token: token } });
  const claims = (token: string) => jwt.decode(token) as Json;
  const forge = (payload: Json, options: jwt.SignOptions = {}, key: string | Buffer = secret) =>
    jwt.sign({ org_id: owner.orgId, org_role: 'Owner', email: OWNER_EMAIL, typ: 'access', ...payload }, key, {
      algorithm: 'HS256',
      subject: owner.userId,
      issuer: 'svc-org-api',
      audience: 'svc-gateway',
      expiresIn: 1800,
      jwtid: randomUUID(),
      ...options,
    });

  it('logs in with the bootstrap Owner: 30-minute bearer access token and a refresh token', async () => {
    const res = await api.call('POST', '/api/v1/auth/login', { body: { email: OWNER_EMAIL, password: OWNER_PASSWORD } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ access_token: expect.any(String), refresh_token: expect.any(String), token_type: 'bearer', expires_in: 1800 });
    const decoded = jwt.decode(res.body.access_token, { complete: true }) as Json;
    expect(decoded.header.alg).toBe('HS256');
    expect(decoded.payload).toMatchObject({ typ: 'access', org_role: 'Owner', iss: 'svc-org-api', aud: 'svc-gateway' });
    expect(decoded.payload.exp - decoded.payload.iat).toBe(1800);
    const refreshClaims = claims(res.body.refresh_token);
    expect(refreshClaims.typ).toBe('refresh');
    expect(refreshClaims.exp - refreshClaims.iat).toBe(7 * 24 * 3600);
    const me = await profile(res.body.access_token);
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ type: 'user', email: OWNER_EMAIL, role: 'Owner', org_id: owner.orgId });
    expect(me.body.last_login_at).toEqual(expect.any(String));
  });

  it('answers the same generic 401 for an unknown e-mail and a wrong password', async () => {
    const unknown = await api.call('POST', '/api/v1/auth/login', { body: { email: 'nobody@example.com', password: OWNER_PASSWORD } });
    const wrong = await api.call('POST', '/api/v1/auth/login', { body: { email: OWNER_EMAIL, password: 'wrong-password-000' } });
    expect(unknown.status).toBe(401);
    expect(wrong.status).toBe(401);
    expect(unknown.body).toEqual(wrong.body);
    expect(unknown.body).toEqual({ error: { code: 'UNAUTHORIZED', message: 'Invalid e-mail or password', details: {} } });
  });

  it('validates login, refresh and register bodies', async () => {
    const missing = await api.call('POST', '/api/v1/auth/login', { body: { email: OWNER_EMAIL } });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { param: 'password' } });
    const extra = await api.call('POST', '/api/v1/auth/login', { body: { email: OWNER_EMAIL, password: 'x', admin: true } });
    expect(extra.status).toBe(400);
    expect((await api.call('POST', '/api/v1/auth/refresh', { body: {} })).status).toBe(400);
    const weak = await api.call('POST', '/api/v1/auth/register', { body: { email: 'a@b.co', password: 'short', org_name: 'X' } });
    expect(weak.status).toBe(400);
    expect(weak.body.error.details.param).toBe('password');
  });

  it('register refuses null for any field (400 naming the field), the optional name too, and creates nobody', async () => {
    const valid = { email: 'null-founder@example.com', password: 'a-long-password-1', org_name: 'Null Co' };
    for (const field of ['email', 'password', 'org_name', 'name']) {
      const res = await api.call('POST', '/api/v1/auth/register', { body: { ...valid, [field]: null } });
      expect({ field, status: res.status, code: res.body.error?.code, param: res.body.error?.details?.param }).toEqual({ field, status: 400, code: 'VALIDATION_ERROR', param: field });
    }
    const named = await api.call('POST', '/api/v1/auth/register', { body: { ...valid, name: null } });
    expect(named.body.error.message).toBe('name must not be null (omit it for the default)');
    // Nobody was created: the e-mail is still free.
    expect((await api.call('POST', '/api/v1/auth/register', { body: valid })).status).toBe(201);
  });

  it('slows down repeated failures for one e-mail and address: 429 with retry_after after 5 failures', async () => {
    const member = await api.userWithRole(owner.orgId, 'Member', 'throttled@example.com');
    expect(member.token).toEqual(expect.any(String));
    for (let i = 0; i < 5; i += 1) {
      expect((await api.call('POST', '/api/v1/auth/login', { body: { email: 'throttled@example.com', password: 'bad-guess-0000' } })).status).toBe(401);
    }
    const locked = await api.call('POST', '/api/v1/auth/login', { body: { email: 'throttled@example.com', password: 'member-password-123' } });
    expect(locked.status).toBe(429);
    expect(locked.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(locked.body.error.details.retry_after).toBeGreaterThan(800);
    expect(Number(locked.headers.get('retry-after'))).toBe(locked.body.error.details.retry_after);
    // Another e-mail from the same address is not affected.
    expect((await api.call('POST', '/api/v1/auth/login', { body: { email: OWNER_EMAIL, password: OWNER_PASSWORD } })).status).toBe(200);
  });

  it('holds the 5-failure limit for parallel guesses: of 30 sent at once, at most 5 are checked', async () => {
    await api.userWithRole(owner.orgId, 'Member', 'parallel@example.com');
    const statuses = await Promise.all(
      Array.from({ length: 30 }, () => api.call('POST', '/api/v1/auth/login', { body: { email: 'parallel@example.com', password: 'bad-guess-0000' } }).then((res) => res.status)),
    );
    expect(statuses.filter((status) => status === 401)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(25);
  });

  it('rotates refresh tokens; reusing a rotated one revokes the whole family', async () => {
    const session = await api.loginOwner();
    const first = await refresh(session.refresh);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ access_token: expect.any(String), refresh_token: expect.any(String), token_type: 'bearer', expires_in: 1800 });
    expect(claims(first.body.refresh_token).fam).toBe(claims(session.refresh).fam);
    expect((await profile(first.body.access_token)).status).toBe(200);
    const second = await refresh(first.body.refresh_token);
    expect(second.status).toBe(200);

    const reuse = await refresh(session.refresh);
    expect(reuse.status).toBe(401);
    expect(reuse.body.error).toMatchObject({ code: 'UNAUTHORIZED', details: { reason: 'refresh_token_reuse' } });
    // The newest token of the family is dead too; other logins are untouched.
    expect((await refresh(second.body.refresh_token)).status).toBe(401);
    expect((await refresh(owner.refresh)).status).toBe(200);
  });

  it('logout invalidates the access token and the refresh token at once', async () => {
    const session = await api.loginOwner();
    const res = await api.call('POST', '/api/v1/auth/logout', { token: session.token, body: { refresh_token: session.refresh } });
    expect(res.status).toBe(204);
    const after = await profile(session.token);
    expect(after.status).toBe(401);
    expect(after.body.error.message).toMatch(/revoked/);
    expect((await refresh(session.refresh)).status).toBe(401);
    expect((await api.call('POST', '/api/v1/auth/logout', { body: {} })).status).toBe(401);
  });

  it('logout without a body still ends the refresh token: both tokens of the login die, other logins live', async () => {
    const session = await api.loginOwner();
    const rotated = await refresh(session.refresh);
    expect(rotated.status).toBe(200);
    const other = await api.loginOwner();
    expect(claims(rotated.body.access_token).fam).toBe(claims(session.refresh).fam);
    expect((await api.call('POST', '/api/v1/auth/logout', { token: rotated.body.access_token })).status).toBe(204);
    expect((await refresh(rotated.body.refresh_token)).status).toBe(401);
    // The first access token of the same login dies with it.
    expect((await profile(session.token)).status).toBe(401);
    expect((await profile(rotated.body.access_token)).status).toBe(401);
    expect((await profile(other.token)).status).toBe(200);
    expect((await refresh(other.refresh)).status).toBe(200);
  });

  it('a refresh token of a logged-out login answers a plain 401 (logged out, not reuse) and never works again', async () => {
    const session = await api.loginOwner();
    const rotated = await refresh(session.refresh);
    expect(rotated.status).toBe(200);
    const other = await api.loginOwner();
    // Logs out this login (its `fam`) and, through the body, another login of the same user.
    const out = await api.call('POST', '/api/v1/auth/logout', { token: rotated.body.access_token, body: { refresh_token: other.refresh } });
    expect(out.status).toBe(204);
    const loggedOut = { code: 'UNAUTHORIZED', message: 'This session was logged out; sign in again', details: { reason: 'logged_out' } };
    for (const token of [rotated.body.refresh_token, other.refresh, rotated.body.refresh_token]) {
      const res = await refresh(token);
      expect({ status: res.status, error: res.body.error }).toEqual({ status: 401, error: loggedOut });
    }
    expect((await profile(other.token)).status).toBe(401);
    // A rotated token of the logged-out login presented again is still reuse.
    const reuse = await refresh(session.refresh);
    expect({ status: reuse.status, reason: reuse.body.error?.details?.reason }).toEqual({ status: 401, reason: 'refresh_token_reuse' });
    expect((await refresh(rotated.body.refresh_token)).body.error).toEqual(loggedOut);
  });

  /** Makes each refresh-token store operation wait 0-9 ms first (the store stays real); returns the undo. */
  const jitterRefreshTokens = (): (() => void) => {
    const collection = api.service.runtime.store.collection(REFRESH_TOKENS) as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    const originals = ['insertOne', 'findOne', 'find', 'count', 'updateOne', 'updateMany', 'findOneAndUpdate', 'deleteOne', 'deleteMany'].map((name) => {
      const original = collection[name];
      collection[name] = async (...args) => {
        await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 10)));
        return original.apply(collection, args);
      };
      return [name, original] as const;
    });
    return () => originals.forEach(([name, original]) => (collection[name] = original));
  };

  it('a refresh racing the logout of its login never leaves a working token of that login', async () => {
    const org = asOrgId(owner.orgId);
    const outcomes = { refreshed: 0, loggedOut: 0 };
    // With the jitter the two requests interleave at every step of the rotation and of the logout.
    const undo = jitterRefreshTokens();
    try {
      for (let i = 0; i < 60; i += 1) {
        const session = await api.loginOwner();
        const family = claims(session.refresh).fam as string;
        // The logout starts 0-19 ms after the refresh.
        const [rotated, out] = await Promise.all([
          refresh(session.refresh),
          new Promise((resolve) => setTimeout(resolve, i % 20)).then(() => api.call('POST', '/api/v1/auth/logout', { token: session.token })),
        ]);
        expect(out.status).toBe(204);
        expect({ i, status: rotated.status, reason: rotated.body.error?.details?.reason }).toEqual(
          rotated.status === 200 ? { i, status: 200, reason: undefined } : { i, status: 401, reason: 'logged_out' },
        );
        // Nothing of the family is live in the store, and no token of it works.
        expect({ i, live: await api.repos.refreshTokens.count(org, { family_id: family, revoked_at: null }) }).toEqual({ i, live: 0 });
        const refreshTokens = rotated.status === 200 ? [session.refresh, rotated.body.refresh_token] : [session.refresh];
        for (const token of refreshTokens) expect({ i, status: (await refresh(token)).status }).toEqual({ i, status: 401 });
        const accessTokens = rotated.status === 200 ? [session.token, rotated.body.access_token] : [session.token];
        for (const token of accessTokens) expect({ i, status: (await profile(token)).status }).toEqual({ i, status: 401 });
        outcomes[rotated.status === 200 ? 'refreshed' : 'loggedOut'] += 1;
      }
    } finally {
      undo();
    }
    // Both orders happened: the race was really run.
    expect(outcomes.refreshed).toBeGreaterThan(0);
    expect(outcomes.loggedOut).toBeGreaterThan(0);
  }, 90_000);

  it('refresh-token reuse revokes the access tokens of the login at once', async () => {
    const session = await api.loginOwner();
    const first = await refresh(session.refresh);
    expect((await profile(first.body.access_token)).status).toBe(200);
    expect((await refresh(session.refresh)).status).toBe(401);
    for (const token of [session.token, first.body.access_token]) {
      const res = await profile(token);
      expect({ status: res.status, message: res.body.error?.message }).toEqual({ status: 401, message: expect.stringMatching(/revoked/) });
    }
  });

  it('logout needs a user token, not an API key', async () => {
    const session = await api.loginOwner();
    const key = await api.createKey(session, ['admin:write']);
    const res = await api.call('POST', '/api/v1/auth/logout', { key: key.key, body: {} });
    expect(res.status).toBe(403);
  });

  it('refuses forged and misused tokens with 401', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    const body = Buffer.from(JSON.stringify({ sub: owner.userId, org_id: owner.orgId, typ: 'access', jti: randomUUID(), iss: 'svc-org-api', aud: 'svc-gateway', exp: Math.floor(Date.now() / 1000) + 600 })).toString('base64url');
    const cases: [string, string][] = [
      ['alg none', `${header}.${body}.`],
      ['HS512', forge({}, { algorithm: 'HS512' })],
      ['RS256', forge({}, { algorithm: 'RS256' }, privateKey.export({ type: 'pkcs8', format: 'pem' }) as string)],
      ['wrong secret', forge({}, {}, 'another-secret-that-is-long-enough-0000')],
      ['wrong audience', forge({}, { audience: 'someone-else' })],
      ['wrong issuer', forge({}, { issuer: 'evil-issuer' })],
      ['expired', forge({}, { expiresIn: -10 })],
      ['refresh token as access token', owner.refresh],
      ['garbage', 'not.a.jwt'],
    ];
    for (const [name, token] of cases) {
      const res = await profile(token);
      expect({ name, status: res.status, code: res.body.error?.code }).toEqual({ name, status: 401, code: 'UNAUTHORIZED' });
    }
    expect((await profile(forge({}, { expiresIn: -10 }))).body.error.message).toBe('Token expired');
    // The control: a correctly forged token with the instance's secret is accepted.
    expect((await profile(forge({}))).status).toBe(200);
    expect((await api.call('GET', '/api/v1/user/profile')).status).toBe(401);
  });

  it('resolves the organization from the token: X-Org-ID of another organization is refused', async () => {
    const other = await api.otherOrganization();
    expect((await profile(owner.token, { 'X-Org-ID': owner.orgId })).status).toBe(200);
    const refused = await profile(owner.token, { 'X-Org-ID': other.orgId });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'FORBIDDEN', details: { reason: 'org_mismatch' } });
    const key = await api.createKey(owner, ['keys:read']);
    expect((await api.call('GET', '/api/v1/platform/api-keys', { key: key.key, headers: { 'X-Org-ID': other.orgId } })).status).toBe(403);
  });

  it('a removed member loses access at once', async () => {
    const member = await api.userWithRole(owner.orgId, 'Member');
    expect((await profile(member.token)).status).toBe(200);
    expect((await api.call('DELETE', `/api/v1/organizations/${owner.orgId}/members/${member.userId}`, { token: owner.token })).status).toBe(204);
    expect((await profile(member.token)).status).toBe(401);
    expect((await refresh(member.refresh)).status).toBe(401);
  });

  it('registers a new organization and its Owner when SIGNUP_ENABLED=true', async () => {
    const res = await api.call('POST', '/api/v1/auth/register', { body: { email: 'Founder@Example.com', password: 'a-long-password-1', org_name: 'Startup' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ token_type: 'bearer', expires_in: 1800 });
    const me = await profile(res.body.access_token);
    expect(me.body).toMatchObject({ email: 'founder@example.com', role: 'Owner', organization: { name: 'Startup', plan: 'free', subscription_status: 'active' } });
    expect(me.body.org_id).not.toBe(owner.orgId);
    const again = await api.call('POST', '/api/v1/auth/register', { body: { email: 'founder@example.com', password: 'a-long-password-1', org_name: 'Dup' } });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'resource_already_exists', resource_type: 'user', request_id: expect.any(String) });
  });
});
