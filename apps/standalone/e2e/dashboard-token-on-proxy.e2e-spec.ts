import { PROVIDER_KEY, Standalone } from './standalone.helpers';

const OWNER = { email: 'token-owner@example.com', password: 'token-owner-password-1' };
const MISSING = 'Missing gateway API key. Send it in the X-SVC-API-Key header, Authorization: Bearer <API_KEY>, or the api_key query parameter.';
const HINT =
  ' The Authorization bearer looks like a dashboard login token (JWT): the gateway accepts one on /gateway/admin only; ' +
  'this route needs a gateway key (create one with POST /api/v1/platform/api-keys or in the dashboard).';

/**
 * SPEC.md "Dashboard JWT fallback": a dashboard access token is accepted for admin endpoints only.
 * On a proxy route it is still a 401 GW_AUTH_001, whose message says why instead of only "missing".
 */
describe('a dashboard login token on a proxy route', () => {
  let env: Standalone;
  beforeAll(async () => {
    env = await Standalone.boot(OWNER, 'growth');
  });
  afterAll(() => env.stop());

  const body = { model: 'gpt-4o-mini', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] };

  it('is refused 401 GW_AUTH_001 with the usual message and a hint that it is for /gateway/admin only', async () => {
    // The login token of POST /api/v1/auth/login as Authorization: Bearer (X-Provider-Key sent too).
    const refused = await env.call('gateway', 'POST', '/v1/chat/completions', { body });
    expect(refused.status).toBe(401);
    expect(refused.body.error).toEqual({ message: MISSING + HINT, type: 'authentication_error', code: 'invalid_api_key', gateway_error_code: 'GW_AUTH_001', param: null });
    expect(JSON.stringify(refused.body)).not.toContain(env.token);

    // Without X-Provider-Key (the token would otherwise count as the provider key) the same.
    const res = await fetch(`${env.service.urls.gateway}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${env.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect({ status: res.status, message: ((await res.json()) as { error: { message: string } }).error.message }).toEqual({ status: 401, message: MISSING + HINT });

    // The same token on /gateway/admin is accepted, as the hint says.
    expect((await env.call('gateway', 'GET', '/gateway/admin/policies')).status).toBe(200);
  });

  it('a bearer that is not a JWT (a provider key) keeps the message without the hint', async () => {
    const refused = await env.call('gateway', 'POST', '/v1/chat/completions', { body, bearer: PROVIDER_KEY });
    expect({ status: refused.status, message: refused.body.error.message }).toEqual({ status: 401, message: MISSING });
  });
});
