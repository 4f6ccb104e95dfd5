import { GatewayHarness, PROVIDER_KEY, rawRequest as raw, startGateway } from './harness';

const chat = (extra: Record<string, unknown> = {}) => ({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'headers' }], ...extra });

/**
 * The proxy writes its answers itself (the Fastify reply is hijacked), so the headers the admin and
 * organization surfaces get from an onSend hook must be set there too: `X-Content-Type-Options:
 * nosniff` on every proxy answer (whole, streamed, refused, replayed, whatever the provider sent),
 * and `Cache-Control: no-store` on whole answers unless the provider set its own.
 */
describe('proxy answers: security headers', () => {
  let gw: GatewayHarness;
  const auth = () => ({ 'X-SVC-API-Key': gw.key, 'X-Provider-Key': PROVIDER_KEY });

  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(() => gw.stop());
  beforeEach(() => gw.mock.reset());

  it('a whole answer and a streamed one carry nosniff; the whole one is not stored by caches', async () => {
    const whole = await raw(gw, 'POST', '/v1/chat/completions', auth(), chat());
    expect(whole.status).toBe(200);
    expect(whole.headers).toMatchObject({ 'x-content-type-options': 'nosniff', 'cache-control': 'no-store', 'content-type': 'application/json' });
    const stream = await raw(gw, 'POST', '/v1/chat/completions', auth(), chat({ stream: true }));
    expect(stream.status).toBe(200);
    // A stream keeps its SSE framing headers.
    expect(stream.headers).toMatchObject({ 'x-content-type-options': 'nosniff', 'cache-control': 'no-cache', 'content-type': 'text/event-stream' });
  });

  it.each([
    ['no gateway key', 'POST', '/v1/chat/completions', {}, chat(), 401],
    ['a key that does not exist', 'GET', '/v1/models', { 'X-SVC-API-Key': 'svc_sk_doesnotexist000000000000000000000000' }, undefined, 401],
    ['a body that is not JSON', 'POST', '/v1/chat/completions', 'auth', '{"model":', 400],
    ['no messages', 'POST', '/v1/chat/completions', 'auth', { model: 'gpt-4o-mini' }, 400],
  ] as const)('a refusal (%s) carries nosniff and no-store', async (_label, method, path, headers, body, status) => {
    const answer = await raw(gw, method, path, headers === 'auth' ? auth() : headers, body);
    expect(answer.status).toBe(status);
    expect({ nosniff: answer.headers['x-content-type-options'], cache: answer.headers['cache-control'] }).toEqual({ nosniff: 'nosniff', cache: 'no-store' });
  });

  it("a provider's own Cache-Control is kept, its X-Content-Type-Options never: an HTML answer is not sniffed", async () => {
    // A provider's error page, relayed with its status (a 4xx is not retried).
    for (const stream of [false, true]) {
      gw.mock.setBehavior({
        fail: {
          status: 403,
          body: '<html><script>alert(document.domain)</script></html>',
          headers: { 'content-type': 'text/plain', 'x-content-type-options': 'off', 'cache-control': 'private, max-age=5' },
        },
      });
      const answer = await raw(gw, 'POST', '/v1/chat/completions', auth(), chat({ stream }));
      expect({ stream, status: answer.status, nosniff: answer.headers['x-content-type-options'] }).toEqual({ stream, status: 403, nosniff: 'nosniff' });
    }
    gw.mock.setBehavior({ headers: { 'cache-control': 'private, max-age=5', 'x-content-type-options': 'off' } });
    const whole = await raw(gw, 'POST', '/v1/chat/completions', auth(), chat());
    expect(whole.status).toBe(200);
    expect(whole.headers).toMatchObject({ 'x-content-type-options': 'nosniff', 'cache-control': 'private, max-age=5' });
  });

  it('an idempotent replay carries them too', async () => {
    const headers = { ...auth(), 'Idempotency-Key': `sec-headers-${Date.now()}` };
    const first = await raw(gw, 'POST', '/v1/chat/completions', headers, chat());
    const replay = await raw(gw, 'POST', '/v1/chat/completions', headers, chat());
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toBe(first.body);
    expect(replay.headers).toMatchObject({ 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' });
  });
});
