import { request } from 'node:http';
import { breakerState, GatewayHarness, Json, postJson, PROVIDER_KEY, startGateway } from './harness';
import { startStuckUpstreams, StuckUpstreams } from './stuck-upstreams';

const chat = (content: string, model = 'gpt-4o') => ({ model, messages: [{ role: 'user', content }] });

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request with headers fetch() would refuse to send (Connection, Keep-Alive, TE, Upgrade, Proxy-*), over node:http. */
function rawPost(url: string, path: string, headers: Record<string, string>, body: string, chunked = false): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(url);
    const framing: Record<string, string> = chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(Buffer.byteLength(body)) };
    const req = request({ host: hostname, port, path, method: 'POST', headers: { ...headers, ...framing } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    if (chunked) {
      req.write(body.slice(0, 10));
      req.end(body.slice(10));
    } else req.end(body);
  });
}

/**
 * The three upstream deadlines (UPSTREAM_CONNECT_TIMEOUT_MS, UPSTREAM_FIRST_BYTE_TIMEOUT_MS,
 * UPSTREAM_TOTAL_TIMEOUT_MS, shortened here) and dropped connections: their status and code, and
 * each counts once against the provider's breaker (docs/gateway-streaming.md "Resilience").
 */
describe('upstream deadlines count against the breaker', () => {
  let gw: GatewayHarness;
  let stuck: StuckUpstreams;
  const auth = () => ({ 'X-SVC-API-Key': gw.key, 'X-Provider-Key': PROVIDER_KEY });
  const breakerOf = (provider: string): Promise<Json> => breakerState(gw, provider);

  beforeAll(async () => {
    stuck = await startStuckUpstreams();
    gw = await startGateway({
      env: {
        UPSTREAM_CONNECT_TIMEOUT_MS: '1000',
        UPSTREAM_FIRST_BYTE_TIMEOUT_MS: '1500',
        UPSTREAM_TOTAL_TIMEOUT_MS: '3000',
        MISTRAL_BASE_URL: `${stuck.silentUrl}/v1`,
        DEEPSEEK_BASE_URL: `${stuck.stallingUrl}/v1`,
      },
    });
  });
  afterAll(async () => {
    await gw.stop();
    await stuck.close();
  });
  beforeEach(() => gw.mock.reset());

  it('connect deadline: 504 upstream_timeout, counted', async () => {
    const res = await postJson(`${gw.url}/v1/mistral/chat/completions`, chat('connect', 'mistral-large-latest'), auth());
    expect(res.status).toBe(504);
    expect(res.body.error).toMatchObject({ type: 'api_error', code: 'upstream_timeout', message: 'mistral: upstream connect timeout' });
    expect(await breakerOf('mistral')).toMatchObject({ state: 'closed', failure_count: 1 });
  });

  it('first-byte deadline (a provider that hangs): 504 upstream_timeout, counted', async () => {
    gw.mock.setBehavior({ match: { format: 'openai' }, latencyMs: 10_000 });
    const res = await postJson(`${gw.url}/v1/groq/chat/completions`, chat('hang', 'llama-3.3-70b-versatile'), auth());
    expect(res.status).toBe(504);
    expect(res.body.error).toMatchObject({ type: 'api_error', code: 'upstream_timeout', message: 'groq: upstream first-byte timeout' });
    expect(await breakerOf('groq')).toMatchObject({ state: 'closed', failure_count: 1 });
  });

  it('a whole answer whose body stalls past the first-byte deadline: 504 upstream_timeout, counted', async () => {
    const res = await postJson(`${gw.url}/v1/deepseek/chat/completions`, chat('stall', 'deepseek-chat'), auth());
    expect(res.status).toBe(504);
    expect(res.body.error).toMatchObject({ type: 'api_error', code: 'upstream_timeout', message: expect.stringMatching(/^deepseek: upstream body timeout/) });
    expect(await breakerOf('deepseek')).toMatchObject({ state: 'closed', failure_count: 1 });
  });

  it('total deadline over a slow drip, a dropped connection and a reset mid-body each count once', async () => {
    // The stream began with a 200: it ends with an error event naming the total deadline.
    gw.mock.setBehavior({ match: { format: 'openai' }, chunkDelayMs: 700 });
    const dripping = await fetch(`${gw.url}/v1/openai/chat/completions`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ ...chat('a slow drip of a long answer, word after word after word'), stream: true }),
    });
    expect(dripping.status).toBe(200);
    expect(await dripping.text()).toContain('upstream total deadline passed');
    expect(await breakerOf('openai')).toMatchObject({ state: 'closed', failure_count: 1 });

    gw.mock.setBehavior({ match: { format: 'openai' }, drop: { times: 1 } });
    const dropped = await postJson(`${gw.url}/v1/openai/chat/completions`, chat('dropped'), auth());
    expect([dropped.status, dropped.body.error.code]).toEqual([502, 'upstream_unavailable']);
    expect(await breakerOf('openai')).toMatchObject({ state: 'closed', failure_count: 2 });

    gw.mock.setBehavior({ match: { format: 'openai' }, fail: { status: 200, truncate: true } });
    const reset = await postJson(`${gw.url}/v1/openai/chat/completions`, chat('reset mid-body'), auth());
    expect([reset.status, reset.body.error.code]).toEqual([502, 'upstream_unavailable']);
    expect(await breakerOf('openai')).toMatchObject({ state: 'closed', failure_count: 3 });
  });
});

/**
 * Hop-by-hop headers (RFC 9110 §7.6.1: Connection, Keep-Alive, TE, Transfer-Encoding, Upgrade,
 * Proxy-*, and the names the Connection header lists) never cross the gateway in either direction,
 * and client headers outside the allowlist never reach the provider.
 */
describe('hop-by-hop and non-allowlisted headers', () => {
  let gw: GatewayHarness;
  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(() => gw.stop());
  beforeEach(() => gw.mock.reset());

  /** What the client may send: hop-by-hop, gateway-only and non-allowlisted names among allowlisted ones. */
  const clientHeaders = (extra: Record<string, string> = {}) => ({
    'content-type': 'application/json',
    'X-SVC-API-Key': gw.key,
    'X-Provider-Key': PROVIDER_KEY,
    Connection: 'keep-alive, X-Listed-Hop, OpenAI-Beta',
    'Keep-Alive': 'timeout=5, max=100',
    TE: 'trailers',
    Upgrade: 'h2c',
    'Proxy-Authorization': 'Basic dXNlcjpwYXNz',
    'Proxy-Connection': 'keep-alive',
    'X-Listed-Hop': 'hop',
    'OpenAI-Beta': 'assistants=v2',
    'OpenAI-Organization': 'org-client',
    'User-Agent': 'resilience-e2e/1.0',
    Cookie: 'session=abc',
    'X-Forwarded-For': '203.0.113.9',
    'X-Unlisted': 'no',
    ...extra,
  });
  /** What a provider (or a proxy in front of it) may answer with. */
  const upstreamHeaders = {
    connection: 'keep-alive, x-upstream-hop',
    'keep-alive': 'timeout=999',
    'x-upstream-hop': 'hop',
    'proxy-authenticate': 'Basic realm="upstream"',
    'proxy-authentication-info': 'nextnonce="abc"',
    'proxy-connection': 'keep-alive',
    'proxy-status': 'upstream-cdn; error=http_response_timeout',
    upgrade: 'h2c',
    te: 'trailers',
    'x-request-id': 'req_upstream_1',
  };
  const NEVER_UPSTREAM = ['keep-alive', 'te', 'upgrade', 'proxy-authorization', 'proxy-connection', 'x-listed-hop', 'openai-beta', 'cookie', 'x-forwarded-for', 'x-unlisted', 'x-svc-api-key', 'x-provider-key', 'transfer-encoding'];
  const NEVER_TO_CLIENT = ['x-upstream-hop', 'proxy-authenticate', 'proxy-authentication-info', 'proxy-connection', 'proxy-status', 'upgrade', 'te'];

  for (const stream of [false, true]) {
    it(`strips them both ways (${stream ? 'streamed' : 'whole'} answer), and forwards the allowlisted ones`, async () => {
      gw.mock.setBehavior({ match: { format: 'openai' }, headers: upstreamHeaders });
      const res = await rawPost(gw.url, '/v1/openai/chat/completions', clientHeaders(), JSON.stringify({ ...chat('headers'), stream }));
      expect(res.status).toBe(200);
      const sent = gw.mock.requests.at(-1)?.headers ?? {};
      expect(NEVER_UPSTREAM.filter((name) => name in sent)).toEqual([]);
      // The gateway's own connection to the provider, never the client's.
      expect(sent.connection).toBe('keep-alive');
      // The gateway key (or another credential) never travels as the provider's: only the provider key.
      expect(sent.authorization).toBe(`Bearer ${PROVIDER_KEY}`);
      expect(JSON.stringify(sent)).not.toContain(gw.key);
      // Allowlisted and not named by Connection: forwarded.
      expect(sent).toMatchObject({ 'user-agent': 'resilience-e2e/1.0', 'openai-organization': 'org-client' });

      expect(NEVER_TO_CLIENT.filter((name) => name in res.headers)).toEqual([]);
      expect(res.headers['keep-alive']).not.toBe('timeout=999');
      expect(res.headers['x-request-id']).toBe('req_upstream_1');
    });
  }

  it('a chunked client body reaches the provider with a content-length of its own', async () => {
    const body = JSON.stringify(chat('sent in chunks'));
    const res = await rawPost(gw.url, '/v1/openai/chat/completions', clientHeaders(), body, true);
    expect(res.status).toBe(200);
    const sent = gw.mock.requests.at(-1);
    expect(sent?.headers['transfer-encoding']).toBeUndefined();
    expect(Number(sent?.headers['content-length'])).toBeGreaterThan(0);
    expect(sent?.body).toMatchObject({ model: 'gpt-4o', messages: [{ role: 'user', content: 'sent in chunks' }] });
  });

  it('the gateway key as Authorization: Bearer never reaches the provider', async () => {
    const headers = clientHeaders({ Authorization: `Bearer ${gw.key}` });
    delete (headers as Record<string, string>)['X-SVC-API-Key'];
    const res = await rawPost(gw.url, '/v1/openai/chat/completions', headers, JSON.stringify(chat('bearer')));
    expect(res.status).toBe(200);
    const sent = gw.mock.requests.at(-1)?.headers ?? {};
    expect(sent.authorization).toBe(`Bearer ${PROVIDER_KEY}`);
    expect(JSON.stringify(sent)).not.toContain(gw.key);
  });
});
