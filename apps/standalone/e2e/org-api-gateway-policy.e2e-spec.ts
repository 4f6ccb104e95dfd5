import { clearOfMinuteEdge } from '@svc/testing';
import { Standalone } from './standalone.helpers';

const OWNER = { email: 'policy-owner@example.com', password: 'policy-owner-password-1' };

/**
 * The organization API's `POST /api/v1/admin/keys` and `PATCH /api/v1/admin/gateway/policy/{org_id}`
 * seen from the gateway: the key it creates proxies, and the RPM it sets is what the gateway enforces
 * from the next request (the `policy` invalidation reaches the gateway's cached profile; its TTL is
 * 5 s, so a stale cache would still answer the old limit here), and what the gateway admin shows.
 */
describe('organization API policy PATCH, enforced by the gateway', () => {
  let env: Standalone;
  beforeAll(async () => {
    env = await Standalone.boot(OWNER, 'growth');
  });
  afterAll(() => env.stop());

  const call = (...args: Parameters<Standalone['call']>) => env.call(...args);
  const chat = (key: string) => call('gateway', 'POST', '/v1/chat/completions', { key, body: { model: 'gpt-4o-mini', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] } });

  it('a key from POST /admin/keys proxies; after PATCH rate_limit_rpm the gateway enforces and shows the new limit at once', async () => {
    const created = await call('org-api', 'POST', '/api/v1/admin/keys', { body: { name: 'rpm-probe', org_id: env.orgId } });
    expect({ status: created.status, scopes: created.body.scopes }).toEqual({ status: 201, scopes: ['gateway:write'] });
    const key: string = created.body.key;

    await clearOfMinuteEdge();
    const before = await chat(key);
    expect({ status: before.status, limit: before.headers.get('x-ratelimit-limit') }).toEqual({ status: 200, limit: '300' });

    const patched = await call('org-api', 'PATCH', `/api/v1/admin/gateway/policy/${env.orgId}`, { body: { rate_limit_rpm: 2 } });
    expect({ status: patched.status, rpm: patched.body.effective?.rpm_limit }).toEqual({ status: 200, rpm: 2 });

    const after = await chat(key);
    expect({ status: after.status, limit: after.headers.get('x-ratelimit-limit'), remaining: after.headers.get('x-ratelimit-remaining') }).toEqual({
      status: 200,
      limit: '2',
      remaining: '0',
    });
    const over = await chat(key);
    expect(over.status).toBe(429);
    expect(over.body.error).toMatchObject({ code: 'rate_limit', message: 'Rate limit exceeded: 3/2 requests per minute' });

    const admin = await call('gateway', 'GET', '/gateway/admin/policies');
    expect(admin.status).toBe(200);
    expect(admin.body).toMatchObject({ org_id: env.orgId, custom: { rpm_limit: 2 }, effective: { rpm_limit: 2 } });
  });
});
