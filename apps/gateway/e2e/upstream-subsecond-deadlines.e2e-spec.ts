import { breakerState, GatewayHarness, Json, postJson, PROVIDER_KEY, startGateway } from './harness';
import { startStuckUpstreams, StuckUpstreams } from './stuck-upstreams';

const chat = (content: string, model: string) => ({ model, messages: [{ role: 'user', content }] });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const CONNECT_MS = 250;
const FIRST_BYTE_MS = 300;
/** How far past its deadline an answer may come: the native timer, the 504's way back, a busy machine. */
const SLACK_MS = 120;

/** How late this machine's own timers fire now (a loaded CI machine): added to the bounds. */
async function timerLateness(): Promise<number> {
  let worst = 0;
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    await sleep(10);
    worst = Math.max(worst, performance.now() - started - 10);
  }
  return worst;
}

/**
 * Deadlines under a second (UPSTREAM_CONNECT_TIMEOUT_MS, UPSTREAM_FIRST_BYTE_TIMEOUT_MS) pass when
 * they are due, not on undici's coarse timers, which fired a 300 ms deadline after 0.5 to 1 s
 * (docs/gateway-streaming.md "Resilience").
 */
describe('sub-second upstream deadlines are kept to the millisecond', () => {
  let gw: GatewayHarness;
  let stuck: StuckUpstreams;
  const auth = () => ({ 'X-SVC-API-Key': gw.key, 'X-Provider-Key': PROVIDER_KEY });
  const breakerOf = (provider: string): Promise<Json> => breakerState(gw, provider);

  beforeAll(async () => {
    stuck = await startStuckUpstreams();
    gw = await startGateway({
      env: {
        UPSTREAM_CONNECT_TIMEOUT_MS: String(CONNECT_MS),
        UPSTREAM_FIRST_BYTE_TIMEOUT_MS: String(FIRST_BYTE_MS),
        MISTRAL_BASE_URL: `${stuck.silentUrl}/v1`,
        DEEPSEEK_BASE_URL: `${stuck.stallingUrl}/v1`,
      },
    });
    // The gateway's first request warms its caches: the timings below measure the deadlines only.
    expect((await postJson(`${gw.url}/v1/openai/chat/completions`, chat('warm up', 'gpt-4o'), auth())).status).toBe(200);
  });
  afterAll(async () => {
    await gw.stop();
    await stuck.close();
  });
  beforeEach(() => gw.mock.reset());

  it('first byte: a provider that hangs is answered 504 upstream_timeout when the deadline passes, counted', async () => {
    gw.mock.setBehavior({ match: { format: 'openai' }, latencyMs: 3_000 });
    const late = await timerLateness();
    const res = await postJson(`${gw.url}/v1/groq/chat/completions`, chat('hang', 'llama-3.3-70b-versatile'), auth());
    const elapsed = Date.now() - (gw.mock.requests.at(-1)?.time ?? 0);
    expect(res.status).toBe(504);
    expect(res.body.error).toMatchObject({ type: 'api_error', code: 'upstream_timeout', message: 'groq: upstream first-byte timeout' });
    expect(elapsed).toBeGreaterThanOrEqual(FIRST_BYTE_MS - 20);
    expect(elapsed).toBeLessThanOrEqual(FIRST_BYTE_MS + SLACK_MS + late);
    expect(await breakerOf('groq')).toMatchObject({ failure_count: 1 });
  });

  it('body: a whole answer that stalls is answered 504 when the silence reaches the deadline', async () => {
    const late = await timerLateness();
    const res = await postJson(`${gw.url}/v1/deepseek/chat/completions`, chat('stall', 'deepseek-chat'), auth());
    const elapsed = Date.now() - stuck.stalledAt();
    expect(res.status).toBe(504);
    expect(res.body.error).toMatchObject({ code: 'upstream_timeout', message: expect.stringMatching(/^deepseek: upstream body timeout/) });
    expect(elapsed).toBeGreaterThanOrEqual(FIRST_BYTE_MS - 20);
    expect(elapsed).toBeLessThanOrEqual(FIRST_BYTE_MS + SLACK_MS + late);
  });

  it('body: a stream that stalls ends with its error event when the silence reaches the deadline; one that drips faster completes', async () => {
    gw.mock.setBehavior({ match: { format: 'openai' }, chunkDelayMs: 2_000 });
    const late = await timerLateness();
    const body = JSON.stringify({ ...chat('a stream that stalls after its first event', 'gpt-4o'), stream: true });
    const res = await fetch(`${gw.url}/v1/openai/chat/completions`, { method: 'POST', headers: { ...auth(), 'content-type': 'application/json' }, body });
    expect(res.status).toBe(200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = decoder.decode((await reader.read()).value);
    const firstEventAt = Date.now();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += decoder.decode(chunk.value);
    const elapsed = Date.now() - firstEventAt;
    expect(text).toContain('upstream body timeout');
    expect(elapsed).toBeLessThanOrEqual(FIRST_BYTE_MS + SLACK_MS + late);

    // Every silence is shorter than the deadline, the whole stream longer: it completes.
    gw.mock.setBehavior({ match: { format: 'openai' }, chunkDelayMs: 120 });
    const dripping = await fetch(`${gw.url}/v1/openai/chat/completions`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ ...chat('a slow drip of a long answer, word after word after word', 'gpt-4o'), stream: true }),
    });
    const started = Date.now();
    const whole = await dripping.text();
    expect(Date.now() - started).toBeGreaterThan(FIRST_BYTE_MS * 2);
    expect(whole.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect(whole).not.toContain('"error"');
  });

  it('connect: a TLS handshake that never ends is answered 504 upstream_timeout when the deadline passes, counted', async () => {
    const late = await timerLateness();
    const started = Date.now();
    const res = await postJson(`${gw.url}/v1/mistral/chat/completions`, chat('connect', 'mistral-large-latest'), auth());
    const elapsed = Date.now() - started;
    expect(res.status).toBe(504);
    expect(res.body.error).toMatchObject({ type: 'api_error', code: 'upstream_timeout', message: 'mistral: upstream connect timeout' });
    expect(elapsed).toBeGreaterThanOrEqual(CONNECT_MS - 20);
    // From the client's side: the gateway's own work (authentication, governance) comes before the dispatch.
    expect(elapsed).toBeLessThanOrEqual(CONNECT_MS + SLACK_MS + 50 + late);
    expect(await breakerOf('mistral')).toMatchObject({ failure_count: 1 });
  });
});
