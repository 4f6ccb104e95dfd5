import { createServer } from 'node:net';
import { breakerState, GatewayHarness, Json, metricSum, postJson, PROVIDER_KEY, setPolicy, startGateway } from './harness';

const chat = (content: string, model = 'gpt-4o') => ({ model, messages: [{ role: 'user', content }] });
const claude = (content: string) => ({ model: 'claude-sonnet-4-6', max_tokens: 5, messages: [{ role: 'user', content }] });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** SPEC.md "Provider circuit-breaker record": exactly these fields. */
const RECORD_FIELDS = [
  'provider',
  'state',
  'failure_count',
  'failure_threshold',
  'failure_window_seconds',
  'recovery_timeout_seconds',
  'last_failure_time',
  'last_success_time',
  'retry_after_seconds',
].sort();

/** A port nothing listens on (bound, then released): the provider refuses the connection. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * The provider breaker's life through the real gateway and the mock's failure injection (SPEC.md
 * "Provider circuit breaker", DECISIONS.md): what counts, opening on the 5th failure, the refusal
 * while open, exactly one half-open probe, its outcome, and per-provider isolation. The recovery
 * time is shortened by CIRCUIT_BREAKER_RECOVERY_SECONDS; the threshold and window are the defaults.
 */
describe('provider circuit breaker lifecycle', () => {
  let gw: GatewayHarness;
  const auth = () => ({ 'X-SVC-API-Key': gw.key, 'X-Provider-Key': PROVIDER_KEY });
  const health = async (): Promise<Json> => (await (await fetch(`${gw.url}/v1/providers/health`)).json()) as Json;
  const breakerOf = (provider: string): Promise<Json> => breakerState(gw, provider);
  const openai = (content: string, headers: Record<string, string> = {}) => postJson(`${gw.url}/v1/openai/chat/completions`, chat(content), { ...auth(), ...headers });
  const changes = (provider: string, state: string) => metricSum(gw, 'svc_gateway_circuit_breaker_state_changes_total', { provider, state });
  /** Polls the health view until the breaker is half-open (the recovery time passed); the elapsed ms. */
  const untilHalfOpen = async (provider: string): Promise<number> => {
    const started = Date.now();
    for (let i = 0; i < 100; i++) {
      if ((await breakerOf(provider)).state === 'half_open') return Date.now() - started;
      await sleep(50);
    }
    throw new Error(`${provider} never became half_open`);
  };
  const expectRefusal = (res: { status: number; headers: Headers; body: Json }) => {
    expect({ status: res.status, error: res.body.error }).toMatchObject({ status: 503, error: { type: 'service_unavailable', code: 'circuit_breaker_open' } });
    const retryAfter = res.headers.get('retry-after');
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  };

  let refusedPort: number;
  beforeAll(async () => {
    refusedPort = await closedPort();
    gw = await startGateway({
      env: { CIRCUIT_BREAKER_RECOVERY_SECONDS: '2', UPSTREAM_FIRST_BYTE_TIMEOUT_MS: '5000', DEEPSEEK_BASE_URL: `http://127.0.0.1:${refusedPort}/v1` },
    });
  });
  afterAll(() => gw.stop());
  beforeEach(() => gw.mock.reset());

  it('counts 500, 502, 503, 504 and 529, never a 4xx, a client abort or a governance refusal, and opens on exactly the 5th', async () => {
    const counted = async () => (await breakerOf('openai')).failure_count as number;
    const openedBefore = await changes('openai', 'open');
    // The provider's status, body and content type come back unchanged, a 5xx included.
    const answers: [number, string, string][] = [
      [500, 'application/json', JSON.stringify({ error: { message: 'boom', type: 'server_error' } })],
      [502, 'text/html; charset=utf-8', '<html><body>502 Bad Gateway</body></html>'],
      [503, 'application/json', JSON.stringify({ error: { message: 'overloaded', type: 'server_error' } })],
      [504, 'text/plain', 'upstream request timeout'],
    ];
    for (const [i, [status, contentType, body]] of answers.entries()) {
      gw.mock.setBehavior({ match: { format: 'openai' }, fail: { status, body, headers: { 'content-type': contentType } } });
      const res = await fetch(`${gw.url}/v1/openai/chat/completions`, { method: 'POST', headers: { ...auth(), 'content-type': 'application/json' }, body: JSON.stringify(chat(`fail ${status}`)) });
      expect([status, res.status, res.headers.get('content-type'), await res.text()]).toEqual([status, status, contentType, body]);
      expect([status, await counted()]).toEqual([status, i + 1]);
    }

    for (const status of [400, 401, 403, 404, 408, 409, 413, 422, 429]) {
      gw.mock.setBehavior({ match: { format: 'openai' }, fail: { status } });
      const res = await openai(`client-side ${status}`);
      expect([status, res.status, await counted()]).toEqual([status, status, 4]);
    }

    // A client that leaves before the provider answers.
    gw.mock.setBehavior({ match: { format: 'openai' }, latencyMs: 400 });
    const controller = new AbortController();
    const left = fetch(`${gw.url}/v1/openai/chat/completions`, { method: 'POST', headers: { ...auth(), 'content-type': 'application/json' }, body: JSON.stringify(chat('leaving')), signal: controller.signal });
    setTimeout(() => controller.abort(), 150);
    await expect(left).rejects.toThrow();
    await sleep(500);
    expect(gw.mock.requests.at(-1)?.clientClosedAt).toBeDefined();
    // A refusal by governance never reaches the provider, nor the breaker.
    await setPolicy(gw, gw.orgId, { allowed_models: ['gpt-4o-mini'] });
    const refusedByPolicy = await openai('not allowed');
    await setPolicy(gw, gw.orgId, {});
    expect(refusedByPolicy.body.error.code).toBe('model_not_allowed');
    expect(await breakerOf('openai')).toMatchObject({ state: 'closed', failure_count: 4 });

    // The 5th counted failure (B's "overloaded" status) opens it.
    gw.mock.setBehavior({ match: { format: 'openai' }, fail: { status: 529 } });
    expect((await openai('fail 529')).status).toBe(529);
    const record = await breakerOf('openai');
    expect(Object.keys(record).sort()).toEqual(RECORD_FIELDS);
    expect(record).toMatchObject({ provider: 'openai', state: 'open', failure_count: 5, failure_threshold: 5, failure_window_seconds: 60, recovery_timeout_seconds: 2 });
    expect(typeof record.last_failure_time).toBe('number');
    expect(record.retry_after_seconds).toBeGreaterThanOrEqual(1);
    expect(record.retry_after_seconds).toBeLessThanOrEqual(2);
    expect(await changes('openai', 'open')).toBe(openedBefore + 1);
    const overall = await health();
    expect([overall.status, typeof overall.timestamp]).toEqual(['degraded', 'string']);

    // While open: refused at once, whole or streamed, and nothing goes upstream.
    gw.mock.reset();
    expectRefusal(await openai('refused'));
    expectRefusal(await postJson(`${gw.url}/v1/openai/chat/completions`, { ...chat('refused stream'), stream: true }, auth()));
    expectRefusal(await postJson(`${gw.url}/v1/chat/completions`, chat('refused on the shared route'), auth()));
    expect(gw.mock.totalRequests).toBe(0);
  });

  it('half-open: exactly one of 20 concurrent requests is the probe, the rest get 503; its success closes the breaker', async () => {
    // Continues from the breaker the previous test opened.
    expect((await breakerOf('openai')).state).toBe('open');
    await untilHalfOpen('openai');
    expect((await breakerOf('openai')).retry_after_seconds).toBeNull();
    const [halfOpenBefore, closedBefore] = [await changes('openai', 'half_open'), await changes('openai', 'closed')];
    // The probe is slow, so that all 20 reach the breaker while it is in flight.
    gw.mock.setBehavior({ match: { format: 'openai' }, latencyMs: 1500 });
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => openai(`concurrent ${i}`)));
    expect(gw.mock.totalRequests).toBe(1);
    expect(answers.filter((res) => res.status === 200)).toHaveLength(1);
    const refused = answers.filter((res) => res.status !== 200);
    expect(refused).toHaveLength(19);
    for (const res of refused) expectRefusal(res);
    expect(await breakerOf('openai')).toMatchObject({ state: 'closed', failure_count: 0, retry_after_seconds: null });
    expect(typeof (await breakerOf('openai')).last_success_time).toBe('number');
    expect([await changes('openai', 'half_open'), await changes('openai', 'closed')]).toEqual([halfOpenBefore, closedBefore + 1]);
    expect((await openai('closed again')).status).toBe(200);
  });

  it('a failed probe re-opens the breaker for another recovery period, and the next successful probe closes it', async () => {
    const messages = () => postJson(`${gw.url}/v1/messages`, claude('probe'), auth());
    gw.mock.setBehavior({ match: { format: 'anthropic' }, fail: { status: 529, times: 6 } });
    for (let i = 0; i < 5; i++) expect((await messages()).status).toBe(529);
    expect((await breakerOf('anthropic')).state).toBe('open');
    await untilHalfOpen('anthropic');
    const openedBefore = await changes('anthropic', 'open');

    // The probe fails: the provider's 529 is relayed, and the breaker is open again.
    const probe = await messages();
    expect(probe.status).toBe(529);
    expect(probe.body).toMatchObject({ type: 'error', error: { type: 'overloaded_error' } });
    const failedAt = Date.now();
    expect(await breakerOf('anthropic')).toMatchObject({ state: 'open', failure_count: 6 });
    expect(await changes('anthropic', 'open')).toBe(openedBefore + 1);
    const during = await messages();
    expectRefusal(during);
    expect(Number(during.headers.get('retry-after'))).toBe(2);
    expect(gw.mock.totalRequests).toBe(6);

    // Another whole recovery period (2 s) before the next probe.
    await untilHalfOpen('anthropic');
    expect(Date.now() - failedAt).toBeGreaterThanOrEqual(1900);
    expect((await messages()).status).toBe(200);
    expect(await breakerOf('anthropic')).toMatchObject({ state: 'closed', failure_count: 0 });
  });

  it("isolates providers: a D provider's open breaker refuses only its own requests", async () => {
    // Groq (D) answers through the same mock routes as provider A: fail exactly its next 5 requests.
    gw.mock.setBehavior({ match: { format: 'openai' }, fail: { status: 502, times: 5 } });
    const groq = () => postJson(`${gw.url}/v1/groq/chat/completions`, chat('groq', 'llama-3.3-70b-versatile'), auth());
    for (let i = 0; i < 5; i++) expect((await groq()).status).toBe(502);
    expectRefusal(await groq());
    expect(gw.mock.totalRequests).toBe(5);

    // Every other provider is served: A, B, C and another D.
    expect((await openai('served')).status).toBe(200);
    expect((await postJson(`${gw.url}/v1/messages`, claude('served'), auth())).status).toBe(200);
    expect((await postJson(`${gw.url}/v1/gemini/chat/completions`, chat('served', 'gemini-2.0-flash'), auth())).status).toBe(200);
    expect((await postJson(`${gw.url}/v1/mistral/chat/completions`, chat('served', 'mistral-large-latest'), auth())).status).toBe(200);
    const states = Object.fromEntries((await health()).providers.map((p: Json) => [p.provider, p.state]));
    expect(states).toMatchObject({ groq: 'open', openai: 'closed', anthropic: 'closed', gemini: 'closed', mistral: 'closed' });
  });

  it('counts refused connections (ECONNREFUSED): 502 upstream_unavailable, the 5th opens the breaker', async () => {
    const deepseek = () => postJson(`${gw.url}/v1/deepseek/chat/completions`, chat('refused', 'deepseek-chat'), auth());
    for (let i = 1; i <= 5; i++) {
      const res = await deepseek();
      expect(res.status).toBe(502);
      expect(res.body.error).toMatchObject({ type: 'api_error', code: 'upstream_unavailable', message: 'deepseek: upstream refused the connection' });
      expect(await breakerOf('deepseek')).toMatchObject({ failure_count: i, state: i < 5 ? 'closed' : 'open' });
    }
    expectRefusal(await deepseek());
  });
});

/** The failure window (CIRCUIT_BREAKER_WINDOW_SECONDS, shortened): failures spread wider than it never open the breaker. */
describe('provider circuit breaker window', () => {
  let gw: GatewayHarness;
  const breakerOf = (provider: string): Promise<Json> => breakerState(gw, provider);
  const fail = () => postJson(`${gw.url}/v1/openai/chat/completions`, chat('fail'), { 'X-SVC-API-Key': gw.key, 'X-Provider-Key': PROVIDER_KEY });

  beforeAll(async () => {
    gw = await startGateway({ env: { CIRCUIT_BREAKER_WINDOW_SECONDS: '1' } });
  });
  afterAll(() => gw.stop());

  it('does not open on 5 failures spread over more than the window, and opens on 5 within it', async () => {
    gw.mock.setBehavior({ match: { format: 'openai' }, fail: { status: 500, times: -1 } });
    for (let i = 0; i < 4; i++) expect((await fail()).status).toBe(500);
    expect(await breakerOf('openai')).toMatchObject({ state: 'closed', failure_count: 4, failure_window_seconds: 1 });
    await sleep(1100);
    // The 5th failure, but the first four left the window.
    expect((await fail()).status).toBe(500);
    expect(await breakerOf('openai')).toMatchObject({ state: 'closed', failure_count: 1 });
    for (let i = 0; i < 3; i++) expect((await fail()).status).toBe(500);
    expect(await breakerOf('openai')).toMatchObject({ state: 'closed', failure_count: 4 });
    expect((await fail()).status).toBe(500);
    expect(await breakerOf('openai')).toMatchObject({ state: 'open', failure_count: 5 });
  });
});
