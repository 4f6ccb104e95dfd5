import { asOrgId } from '@svc/domain';
import { GatewayHarness, rawRequest as raw, startGateway } from './harness';

const SHORT_KEY = 'hunter2';
const chat = (stream: boolean) => ({ model: 'mistral-small-latest', messages: [{ role: 'user', content: 'hi' }], stream });

/**
 * A stored provider key under 8 characters (a self-hosted server's `--api-key hunter2`) that the
 * provider's error page echoes is relayed `[REDACTED]` where it stands as a whole token, and the rest
 * of the answer as it came (docs/gateway-routes.md "The provider key never comes back to the client").
 */
describe('proxy: a short stored provider key echoed by the provider', () => {
  let gw: GatewayHarness;

  beforeAll(async () => {
    gw = await startGateway();
    const sealed = gw.service.runtime.cipher.encrypt(gw.orgId, SHORT_KEY);
    await gw.repos.providerSecrets.create(asOrgId(gw.orgId), { provider: 'mistral', encrypted: sealed, label: 'short', last_four: 'ter2' });
    await gw.service.runtime.invalidation.publish('provider-secret', gw.orgId);
  });
  afterAll(() => gw.stop());
  beforeEach(() => gw.mock.reset());

  it.each([false, true])('stream %s: the key is gone from the body and the headers, longer words that contain it stay', async (stream) => {
    gw.mock.setBehavior({
      fail: {
        status: 401,
        body: JSON.stringify({ message: `Invalid key: ${SHORT_KEY}. Sent Authorization: Bearer ${SHORT_KEY}`, hint: 'hunter22 xhunter2 hunter2-b', code: null }),
        headers: { 'content-type': 'application/json', 'www-authenticate': `Bearer realm="mistral", error_description="key ${SHORT_KEY} refused"` },
      },
    });
    const answer = await raw(gw, 'POST', '/v1/mistral/chat/completions', { 'X-SVC-API-Key': gw.key }, chat(stream));
    expect(gw.mock.requests.at(-1)?.headers.authorization).toBe(`Bearer ${SHORT_KEY}`);
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body)).toEqual({ message: 'Invalid key: [REDACTED]. Sent Authorization: Bearer [REDACTED]', hint: 'hunter22 xhunter2 hunter2-b', code: null });
    expect(answer.headers['www-authenticate']).toBe('Bearer realm="mistral", error_description="key [REDACTED] refused"');
  });
});
