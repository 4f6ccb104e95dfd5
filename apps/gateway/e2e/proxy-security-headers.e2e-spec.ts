import { API_CONTENT_SECURITY_POLICY, DOCS_CONTENT_SECURITY_POLICY } from '@svc/platform';
import { GatewayHarness, PROVIDER_KEY, rawRequest as raw, startGateway } from './harness';

const chat = (extra: Record<string, unknown> = {}) => ({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'headers' }], ...extra });

/**
 * The proxy writes its answers itself (the Fastify reply is hijacked), so the headers the admin and
 * organization surfaces get from an onSend hook must be set there too: `X-Content-Type-Options:
 * nosniff` and the API's `Content-Security-Policy` (nothing loads, runs or frames) on every proxy
 * answer (whole, streamed, refused, replayed, whatever the provider sent), and `Cache-Control:
 * no-store` on whole answers unless the provider set its own. `/docs` (Swagger UI) gets a policy
 * that lets its own scripts and styles run, and is never framed.
 */
const CSP = "default-src 'none'; form-action 'none'; frame-ancestors 'none'";

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
    expect(whole.headers).toMatchObject({ 'x-content-type-options': 'nosniff', 'cache-control': 'no-store', 'content-type': 'application/json', 'content-security-policy': CSP });
    const stream = await raw(gw, 'POST', '/v1/chat/completions', auth(), chat({ stream: true }));
    expect(stream.status).toBe(200);
    // A stream keeps its SSE framing headers.
    expect(stream.headers).toMatchObject({ 'x-content-type-options': 'nosniff', 'cache-control': 'no-cache', 'content-type': 'text/event-stream', 'content-security-policy': CSP });
  });

  it.each([
    ['no gateway key', 'POST', '/v1/chat/completions', {}, chat(), 401],
    ['a key that does not exist', 'GET', '/v1/models', { 'X-SVC-API-Key': 'svc_sk_doesnotexist000000000000000000000000' }, undefined, 401],
    ['a body that is not JSON', 'POST', '/v1/chat/completions', 'auth', '{"model":', 400],
    ['no messages', 'POST', '/v1/chat/completions', 'auth', { model: 'gpt-4o-mini' }, 400],
    ['a path that is not valid percent-encoding (the router refuses it)', 'GET', '/v1/models/%zz', 'auth', undefined, 400],
  ] as const)('a refusal (%s) carries nosniff, the CSP and no-store', async (_label, method, path, headers, body, status) => {
    const answer = await raw(gw, method, path, headers === 'auth' ? auth() : headers, body);
    expect(answer.status).toBe(status);
    expect({ nosniff: answer.headers['x-content-type-options'], csp: answer.headers['content-security-policy'], cache: answer.headers['cache-control'] }).toEqual({
      nosniff: 'nosniff',
      csp: CSP,
      cache: 'no-store',
    });
  });

  it("a provider's own Cache-Control is kept, its X-Content-Type-Options and CSP never: an HTML page runs nothing", async () => {
    // A provider's error page, relayed with its status (a 4xx is not retried), as plain text and as HTML.
    for (const [stream, type] of [[false, 'text/plain'], [true, 'text/plain'], [false, 'text/html'], [true, 'text/html']] as const) {
      gw.mock.setBehavior({
        fail: {
          status: 403,
          body: '<html><script>alert(document.domain)</script></html>',
          headers: { 'content-type': type, 'x-content-type-options': 'off', 'content-security-policy': "script-src 'unsafe-inline'", 'cache-control': 'private, max-age=5' },
        },
      });
      const answer = await raw(gw, 'POST', '/v1/chat/completions', auth(), chat({ stream }));
      expect({ stream, type, status: answer.status, nosniff: answer.headers['x-content-type-options'], csp: answer.headers['content-security-policy'] }).toEqual({
        stream,
        type,
        status: 403,
        nosniff: 'nosniff',
        csp: CSP,
      });
    }
    gw.mock.setBehavior({ headers: { 'cache-control': 'private, max-age=5', 'x-content-type-options': 'off' } });
    const whole = await raw(gw, 'POST', '/v1/chat/completions', auth(), chat());
    expect(whole.status).toBe(200);
    expect(whole.headers).toMatchObject({ 'x-content-type-options': 'nosniff', 'cache-control': 'private, max-age=5', 'content-security-policy': CSP });
  });

  it('an idempotent replay carries them too', async () => {
    const headers = { ...auth(), 'Idempotency-Key': `sec-headers-${Date.now()}` };
    const first = await raw(gw, 'POST', '/v1/chat/completions', headers, chat());
    const replay = await raw(gw, 'POST', '/v1/chat/completions', headers, chat());
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toBe(first.body);
    expect(replay.headers).toMatchObject({ 'x-content-type-options': 'nosniff', 'cache-control': 'no-store', 'content-security-policy': CSP });
  });

  it("the gateway's own routes carry the API's CSP; /docs gets one Swagger UI works under, and is never framed", async () => {
    expect(API_CONTENT_SECURITY_POLICY).toBe(CSP);
    for (const path of ['/health', '/metrics', '/nope', '/docsx']) {
      const answer = await raw(gw, 'GET', path, {});
      expect({ path, csp: answer.headers['content-security-policy'], frame: answer.headers['x-frame-options'] }).toEqual({ path, csp: CSP, frame: undefined });
    }
    const page = await raw(gw, 'GET', '/docs', {});
    expect(page.status).toBe(200);
    expect(page.headers).toMatchObject({ 'content-security-policy': DOCS_CONTENT_SECURITY_POLICY, 'x-frame-options': 'DENY', 'x-content-type-options': 'nosniff' });
    // Everything the page loads comes from the service itself, and no script is inline.
    const scripts = [...page.body.matchAll(/<script([^>]*)>([^<]*)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    expect(scripts.filter(([, attributes, code]) => !/\bsrc=/.test(attributes) || code.trim() !== '').map(([tag]) => tag)).toEqual([]);
    const assets = [...page.body.matchAll(/(?:src|href)=["']([^"']+)["']/g)].map(([, url]) => url).filter((url) => !url.startsWith('http://www.w3.org/'));
    expect(assets.filter((url) => /^(https?:)?\/\//.test(url))).toEqual([]);
    for (const asset of assets) {
      const answer = await raw(gw, 'GET', new URL(asset, `${gw.url}/docs`).pathname, {});
      expect({ asset, status: answer.status, csp: answer.headers['content-security-policy'] }).toEqual({ asset, status: 200, csp: DOCS_CONTENT_SECURITY_POLICY });
    }
    expect(DOCS_CONTENT_SECURITY_POLICY).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
  });
});
