import { breakerState, GatewayHarness, Json, postJson, PROVIDER_KEY, startGateway } from './harness';

const chat = (content: string, model: string) => ({ model, messages: [{ role: 'user', content }] });
const claude = (content: string) => ({ model: 'claude-sonnet-4-6', max_tokens: 50, messages: [{ role: 'user', content }] });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One provider's route, request body and mock format. */
interface Route {
  provider: string;
  path: string;
  body: (content: string) => Json;
  format: 'openai' | 'anthropic';
}
const route = (provider: string, model: string): Route => ({ provider, path: `/v1/${provider}/chat/completions`, body: (content) => chat(content, model), format: 'openai' });
const OPENAI = route('openai', 'gpt-4o');
const GROQ = route('groq', 'llama-3.3-70b-versatile');
const MISTRAL = route('mistral', 'mistral-large-latest');
const OLLAMA = route('ollama', 'llama3.2');
const ANTHROPIC: Route = { provider: 'anthropic', path: '/v1/messages', body: claude, format: 'anthropic' };

/**
 * A half-open breaker's probe that streams is judged when its stream ends, not when the provider's
 * 200 arrives (docs/gateway-streaming.md "Resilience"): a stream that completes (or breaks only after its
 * documented end) closes the breaker; one the provider breaks mid-way or stalls past the deadline
 * re-opens it; one the client leaves is neither, and the next request probes again. While the probe
 * streams, every other request is refused with 503 `circuit_breaker_open`.
 */
describe('a streamed half-open probe is judged at the end of its stream', () => {
  let gw: GatewayHarness;
  const auth = () => ({ 'X-SVC-API-Key': gw.key, 'X-Provider-Key': PROVIDER_KEY });
  const breakerOf = (provider: string): Promise<Json> => breakerState(gw, provider);
  const whole = (at: Route, content: string) => postJson(`${gw.url}${at.path}`, at.body(content), auth());
  const streamed = (at: Route, content: string, signal?: AbortSignal) =>
    fetch(`${gw.url}${at.path}`, { method: 'POST', headers: { ...auth(), 'content-type': 'application/json' }, body: JSON.stringify({ ...at.body(content), stream: true }), signal });

  /** Five 500s open the provider's breaker; resolves once it is half-open (CIRCUIT_BREAKER_RECOVERY_SECONDS=1). */
  async function halfOpen(at: Route): Promise<void> {
    gw.mock.setBehavior({ match: { format: at.format }, fail: { status: 500, times: 5 } });
    for (let i = 0; i < 5; i++) expect((await whole(at, 'fail')).status).toBe(500);
    expect((await breakerOf(at.provider)).state).toBe('open');
    for (let i = 0; i < 100; i++) {
      if ((await breakerOf(at.provider)).state === 'half_open') return;
      await sleep(50);
    }
    throw new Error(`${at.provider} never became half_open`);
  }

  /** While the probe streams: another request (whole or streamed) is refused, and never reaches the provider. */
  async function expectRefusedDuringProbe(at: Route): Promise<void> {
    const before = gw.mock.totalRequests;
    const refused = await whole(at, 'during the probe');
    expect([refused.status, refused.body.error?.code]).toEqual([503, 'circuit_breaker_open']);
    expect((await streamed(at, 'during the probe, streamed')).status).toBe(503);
    expect(gw.mock.totalRequests).toBe(before);
    expect(await breakerOf(at.provider)).toMatchObject({ state: 'half_open' });
  }

  beforeAll(async () => {
    gw = await startGateway({ env: { CIRCUIT_BREAKER_RECOVERY_SECONDS: '1', UPSTREAM_FIRST_BYTE_TIMEOUT_MS: '1000' } });
  });
  afterAll(() => gw.stop());
  beforeEach(() => gw.mock.reset());

  it('a probe whose stream the provider breaks mid-way (after its 200) re-opens the breaker; others get 503 meanwhile', async () => {
    await halfOpen(OPENAI);
    gw.mock.setBehavior({ match: { format: 'openai' }, chunkDelayMs: 500, abort: { afterChunks: 3 } });
    const probe = await streamed(OPENAI, 'the probe, a stream the provider breaks');
    expect(probe.status).toBe(200);
    await expectRefusedDuringProbe(OPENAI);
    expect(await probe.text()).toContain('The upstream stream failed');
    expect(await breakerOf('openai')).toMatchObject({ state: 'open', failure_count: 6 });
    expect((await whole(OPENAI, 'after the failed probe')).status).toBe(503);
  });

  it('a probe whose stream stalls past the first-byte deadline re-opens the breaker', async () => {
    await halfOpen(GROQ);
    // The first event comes at once, then nothing for longer than UPSTREAM_FIRST_BYTE_TIMEOUT_MS.
    gw.mock.setBehavior({ match: { format: 'openai' }, chunkDelayMs: 3000 });
    const probe = await streamed(GROQ, 'the probe, a stream that stalls');
    expect(probe.status).toBe(200);
    await expectRefusedDuringProbe(GROQ);
    expect(await probe.text()).toContain('upstream body timeout');
    expect(await breakerOf('groq')).toMatchObject({ state: 'open', failure_count: 6 });
  });

  it('a probe whose stream completes closes the breaker, also when the connection breaks right after its [DONE]', async () => {
    // How many events a whole stream of this request has ([DONE] included): the abort below cuts right after the last.
    const reference = await (await streamed(MISTRAL, 'the probe, a stream that completes')).text();
    const events = reference.split('\n\n').filter((event) => event.startsWith('data: ')).length;
    expect(reference.trimEnd().endsWith('data: [DONE]')).toBe(true);

    await halfOpen(MISTRAL);
    gw.mock.setBehavior({ match: { format: 'openai' }, chunkDelayMs: 150, abort: { afterChunks: events } });
    const probe = await streamed(MISTRAL, 'the probe, a stream that completes');
    expect(probe.status).toBe(200);
    await expectRefusedDuringProbe(MISTRAL);
    const text = await probe.text();
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect(text).not.toContain('"error"');
    expect(await breakerOf('mistral')).toMatchObject({ state: 'closed', failure_count: 0 });
    expect((await whole(MISTRAL, 'closed again')).status).toBe(200);
  });

  it('a B probe whose stream completes closes the breaker', async () => {
    await halfOpen(ANTHROPIC);
    gw.mock.setBehavior({ match: { format: 'anthropic' }, chunkDelayMs: 100 });
    const probe = await streamed(ANTHROPIC, 'the probe, a Messages stream');
    expect(probe.status).toBe(200);
    await expectRefusedDuringProbe(ANTHROPIC);
    expect(await probe.text()).toContain('event: message_stop');
    expect(await breakerOf('anthropic')).toMatchObject({ state: 'closed', failure_count: 0 });
  });

  it('a probe the client leaves mid-stream is neither success nor failure: the breaker stays half-open and the next request probes', async () => {
    await halfOpen(OLLAMA);
    gw.mock.setBehavior({ match: { format: 'openai' }, chunkDelayMs: 300 });
    const controller = new AbortController();
    const probe = await streamed(OLLAMA, 'the probe, a stream its client leaves', controller.signal);
    expect(probe.status).toBe(200);
    await expectRefusedDuringProbe(OLLAMA);
    const reader = probe.body?.getReader();
    await reader?.read();
    controller.abort();
    // The gateway hears the client leave, releases the probe and closes the upstream request.
    for (let i = 0; i < 40 && gw.mock.requests.at(-1)?.clientClosedAt === undefined; i++) await sleep(50);
    expect(gw.mock.requests.at(-1)?.clientClosedAt).toBeDefined();
    expect(await breakerOf('ollama')).toMatchObject({ state: 'half_open', failure_count: 5 });
    gw.mock.reset();
    const next = await whole(OLLAMA, 'the next probe');
    expect(next.status).toBe(200);
    expect(await breakerOf('ollama')).toMatchObject({ state: 'closed', failure_count: 0 });
  });
});
