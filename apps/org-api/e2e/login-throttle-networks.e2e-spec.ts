import { OrgApi, OWNER_EMAIL, OWNER_PASSWORD, Session } from './org-api.helpers';

/**
 * The login slowdown (5 failures per e-mail and client address in 15 minutes) counts an IPv6 client
 * by its /64: one subscriber or cloud instance holds a whole /64 and could otherwise send 5 guesses
 * from each of its 2^64 addresses. The client address comes from X-Forwarded-For through a trusted
 * proxy (TRUSTED_PROXIES), as behind an Ingress.
 */
describe('org API login slowdown: client networks', () => {
  let api: OrgApi;
  let owner: Session;
  beforeAll(async () => {
    api = await OrgApi.boot({ TRUSTED_PROXIES: '127.0.0.1' });
    owner = await api.loginOwner();
  });
  afterAll(() => api.stop());

  const login = (email: string, password: string, from: string) =>
    api.call('POST', '/api/v1/auth/login', { body: { email, password }, headers: { 'x-forwarded-for': from } });

  it('counts the addresses of one IPv6 /64 together: a sixth guess from a new address of it is refused', async () => {
    const email = 'v6-guessed@example.com';
    await api.userWithRole(owner.orgId, 'Member', email);
    const statuses: number[] = [];
    for (let i = 1; i <= 5; i += 1) statuses.push((await login(email, 'bad-guess-0000', `2001:db8:aa:1::${i.toString(16)}`)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401]);
    // Other addresses of the same /64, in other spellings: locked out, even with the right password.
    for (const from of ['2001:db8:aa:1:ffff:ffff:ffff:fffe', '2001:0db8:00aa:0001:0000:0000:0000:0099', '[2001:db8:aa:1::7]']) {
      const locked = await login(email, 'member-password-123', from);
      expect({ from, status: locked.status, code: locked.body.error?.code }).toEqual({ from, status: 429, code: 'RATE_LIMIT_EXCEEDED' });
    }
    // Another /64 (the next network) and an IPv4 client are other clients.
    expect((await login(email, 'member-password-123', '2001:db8:aa:2::1')).status).toBe(200);
    expect((await login(email, 'member-password-123', '203.0.113.9')).status).toBe(200);
  });

  it('keeps counting IPv4 clients one address at a time, an IPv4-mapped IPv6 one as its IPv4', async () => {
    const email = 'v4-guessed@example.com';
    await api.userWithRole(owner.orgId, 'Member', email);
    for (let i = 0; i < 5; i += 1) expect((await login(email, 'bad-guess-0000', '198.51.100.7')).status).toBe(401);
    expect((await login(email, 'member-password-123', '::ffff:198.51.100.7')).status).toBe(429);
    expect((await login(email, 'member-password-123', '198.51.100.8')).status).toBe(200);
    // The Owner, from the locked-out address: another e-mail is not affected.
    expect((await login(OWNER_EMAIL, OWNER_PASSWORD, '198.51.100.7')).status).toBe(200);
  });
});
