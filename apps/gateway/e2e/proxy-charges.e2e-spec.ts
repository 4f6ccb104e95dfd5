import { asOrgId, roundUsd, UsageRecordEntity } from '@svc/domain';
import { costOf } from '@svc/governance';
import { createOrg, GatewayHarness, metricSum, postJson, PROVIDER_KEY, recordOf, setPolicy, startGateway, TestOrg } from './harness';

type Line = Record<string, unknown>;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The service's log lines as pino writes them (ACCESS_LOG on). */
class LogCapture {
  readonly lines: Line[] = [];

  write(chunk: string): void {
    for (const text of chunk.split('\n')) if (text.trim()) this.lines.push(JSON.parse(text) as Line);
  }

  async accessLine(requestId: string): Promise<Line> {
    for (let waited = 0; waited < 2_000; waited += 10) {
      const line = this.lines.find((l) => l.msg === 'request' && l.request_id === requestId);
      if (line) return line;
      await sleep(10);
    }
    throw new Error(`no access line for ${requestId}`);
  }
}

/** The answer text a client got from an SSE body: format-A deltas (A, C) or B's text deltas. */
function streamedText(body: string): string {
  let text = '';
  for (const event of body.split('\n\n')) {
    const data = event.split('\n').find((line) => line.startsWith('data: '))?.slice('data: '.length);
    if (!data || data === '[DONE]') continue;
    const parsed = JSON.parse(data) as { choices?: { delta?: { content?: string } }[]; type?: string; delta?: { text?: string } };
    text += parsed.choices?.[0]?.delta?.content ?? (parsed.type === 'content_block_delta' ? (parsed.delta?.text ?? '') : '');
  }
  return text;
}

/**
 * What a proxied request is charged, in every path: the budget counters, the usage record, the
 * access line and the cost metric take one amount, and the record's tokens are what it is made of.
 */
describe('gateway charges: counters, usage record and access line agree', () => {
  const logs = new LogCapture();
  let gw: GatewayHarness;

  beforeAll(async () => {
    gw = await startGateway({ env: { LOG_LEVEL: 'info', ACCESS_LOG: 'true', UPSTREAM_FIRST_BYTE_TIMEOUT_MS: '400', CIRCUIT_BREAKER_FAILURE_THRESHOLD: '2' }, logs });
  });
  afterAll(() => gw.stop());
  beforeEach(() => gw.mock.reset());

  const auth = (org: TestOrg, extra: Record<string, string> = {}) => ({ 'X-SVC-API-Key': org.key, 'X-Provider-Key': PROVIDER_KEY, ...extra });

  /** The organization's settled spend today, as the next (free, ollama) request reports it, once settles landed. */
  async function dailyCost(org: TestOrg, atLeast: number): Promise<number> {
    let daily = 0;
    for (let i = 0; i < 20; i++) {
      const next = await postJson(`${gw.url}/v1/chat/completions`, { model: 'ollama/llama3.2', messages: [{ role: 'user', content: `next ${i}` }] }, auth(org));
      expect(next.status).toBe(200);
      daily = Number(next.headers.get('x-svc-daily-cost'));
      if (daily >= atLeast - 1e-6) break;
      await sleep(50);
    }
    return daily;
  }

  /** Record, access line and counters say the same: tokens, cost (the line's with roundUsd) and source. */
  async function expectAgreement(requestId: string, org: TestOrg): Promise<UsageRecordEntity> {
    const record = await recordOf(gw, requestId, org.orgId);
    const line = await logs.accessLine(requestId);
    expect(line).toMatchObject({ input_tokens: record.input_tokens, output_tokens: record.output_tokens, cost: roundUsd(record.cost), usage_source: record.usage_source, status_code: record.status_code });
    expect(Math.abs((await dailyCost(org, record.cost)) - record.cost)).toBeLessThanOrEqual(1e-6); // settled in micro-dollars
    return record;
  }

  async function streamOf(path: string, org: TestOrg, body: unknown): Promise<{ requestId: string; text: string; status: number }> {
    const res = await fetch(`${gw.url}${path}`, { method: 'POST', headers: { ...auth(org), 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const raw = await res.text();
    return { requestId: res.headers.get('x-svc-request-id') as string, text: streamedText(raw), status: res.status };
  }

  it('A: a stream broken upstream after some words is charged its counted input and the text relayed, like one its client left', async () => {
    const org = await createOrg(gw, 'growth');
    gw.mock.setBehavior({ match: { format: 'openai' }, abort: { afterChunks: 4 } });
    const metricBefore = await metricSum(gw, 'svc_gateway_cost_usd_total', { provider: 'openai' });
    const body = { model: 'gpt-4o', messages: [{ role: 'user', content: 'a stream that breaks upstream' }], max_tokens: 300, stream: true };
    const { requestId, text, status } = await streamOf('/v1/chat/completions', org, body);
    expect(status).toBe(200);
    expect(text).toBe('mock reply to: ');
    const record = await expectAgreement(requestId, org);
    expect(record).toMatchObject({ status_code: 502, usage_source: 'estimate', input_tokens: record.replay.estimated_input_tokens, output_tokens: Math.ceil(text.length / 4) });
    expect(record.cost).toBeGreaterThan(0);
    expect(record.cost).toBeCloseTo(costOf('gpt-4o', { input_tokens: record.input_tokens, output_tokens: record.output_tokens }), 12);
    expect(await metricSum(gw, 'svc_gateway_cost_usd_total', { provider: 'openai' })).toBeGreaterThan(metricBefore);
  });

  it('B: a stream broken after message_start keeps the provider input count and charges the text relayed, not 1 output token', async () => {
    const org = await createOrg(gw, 'growth');
    // message_start, content_block_start, ping, then three text deltas.
    gw.mock.setBehavior({ match: { format: 'anthropic' }, abort: { afterChunks: 6 } });
    const body = { model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'a messages stream that breaks upstream' }], max_tokens: 300, stream: true };
    const res = await fetch(`${gw.url}/v1/messages`, { method: 'POST', headers: { ...auth(org), 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const raw = await res.text();
    const start = JSON.parse(/event: message_start\ndata: (.*)\n/.exec(raw)?.[1] ?? '{}') as { message: { usage: { input_tokens: number } } };
    const text = streamedText(raw);
    expect(text).toBe('mock reply to: ');
    const record = await expectAgreement(res.headers.get('x-svc-request-id') as string, org);
    expect(record).toMatchObject({ status_code: 502, usage_source: 'estimate', input_tokens: start.message.usage.input_tokens, output_tokens: Math.ceil(text.length / 4) });
    expect(record.output_tokens).toBeGreaterThan(1);
  });

  it('C: a translated stream broken upstream is charged the text it relayed', async () => {
    const org = await createOrg(gw, 'growth');
    gw.mock.setBehavior({ match: { format: 'gemini' }, abort: { afterChunks: 3 } });
    const body = { model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'a gemini stream that breaks upstream' }], max_tokens: 300, stream: true };
    const { requestId, text } = await streamOf('/v1/gemini/chat/completions', org, body);
    expect(text).toBe('mock reply to: ');
    const record = await expectAgreement(requestId, org);
    expect(record).toMatchObject({ status_code: 502, usage_source: 'estimate', output_tokens: Math.ceil(text.length / 4) });
    expect(record.input_tokens).toBeGreaterThan(0);
  });

  it('a completed stream and an embeddings call are charged the provider usage', async () => {
    const org = await createOrg(gw, 'growth');
    const { requestId } = await streamOf('/v1/gemini/chat/completions', org, { model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'a whole stream' }], stream: true });
    const stream = await expectAgreement(requestId, org);
    expect(stream).toMatchObject({ status_code: 200, usage_source: 'provider' });
    expect(stream.output_tokens).toBeGreaterThan(0);

    const embedded = await postJson(`${gw.url}/v1/embeddings`, { model: 'text-embedding-3-small', input: 'embed this' }, auth(org));
    expect(embedded.status).toBe(200);
    const record = await recordOf(gw, embedded.headers.get('x-svc-request-id') as string, org.orgId);
    expect(record).toMatchObject({ usage_source: 'provider', input_tokens: embedded.body.usage.prompt_tokens, output_tokens: 0 });
    // A short input's estimate is far below a micro-dollar: the header still reads as a plain decimal.
    const header = embedded.headers.get('x-svc-cost') as string;
    expect(header).toMatch(/^\d+\.\d+$/);
    expect(Number(header)).toBe(roundUsd(record.estimated_cost));
    expect(record.estimated_cost).toBeLessThan(1e-6);
  });

  it('the access line shows the cost with roundUsd, as the record keeps it at full precision', async () => {
    const org = await createOrg(gw, 'growth');
    // gpt-4o-mini with the mock's counts (1 prompt, 4 completion tokens) costs 0.0000025499999999999997 as a float.
    const res = await postJson(`${gw.url}/v1/chat/completions`, { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'a' }] }, auth(org));
    expect(res.status).toBe(200);
    const requestId = res.headers.get('x-svc-request-id') as string;
    const record = await recordOf(gw, requestId, org.orgId);
    expect(record.cost).not.toBe(roundUsd(record.cost));
    expect((await logs.accessLine(requestId)).cost).toBe(roundUsd(record.cost));
  });

  it('an idempotent replay is recorded at no cost and the counters are charged once', async () => {
    const org = await createOrg(gw, 'growth');
    const headers = auth(org, { 'Idempotency-Key': `charge-once-${org.orgId}` });
    const body = { model: 'gpt-4o-mini', max_tokens: 50, messages: [{ role: 'user', content: 'charge me once' }] };
    const first = await postJson(`${gw.url}/v1/chat/completions`, body, headers);
    expect(first.status).toBe(200);
    const replay = await postJson(`${gw.url}/v1/chat/completions`, body, headers);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.headers.get('x-svc-cost')).toBe('0');
    const served = await expectAgreement(first.headers.get('x-svc-request-id') as string, org);
    expect(served).toMatchObject({ usage_source: 'provider' });
    expect(served.cost).toBeGreaterThan(0);
    const replayed = await recordOf(gw, replay.headers.get('x-svc-request-id') as string, org.orgId);
    expect(replayed).toMatchObject({ status_code: 200, cost: 0, input_tokens: 0, output_tokens: 0, usage_source: 'replay' });
    // Both records together are the counters' spend: the replay added nothing.
    const records = (await gw.repos.usage.listRange(asOrgId(org.orgId), { from: new Date(Date.now() - 60_000) })).items.filter((r) => r.provider !== 'ollama');
    const total = records.reduce((sum, r) => sum + r.cost, 0);
    expect(Math.abs((await dailyCost(org, total)) - total)).toBeLessThanOrEqual(1e-6);
  });

  it('charges nothing, and says so, where nothing was answered: a 5xx, an open breaker, a refusal, an approval', async () => {
    // On a D provider: this test's two failures open its breaker (threshold 2 here) and no other test fails it.
    const org = await createOrg(gw, 'growth');
    const chat = (content: string, model = 'mistral-small-latest') => ({ model, messages: [{ role: 'user', content }], max_tokens: 50 });
    const url = `${gw.url}/v1/mistral/chat/completions`;
    const ids: string[] = [];
    const expectStatus = (res: { status: number; headers: Headers }, status: number) => {
      expect(res.status).toBe(status);
      ids.push(res.headers.get('x-svc-request-id') as string);
    };
    gw.mock.setBehavior({ match: { format: 'openai' }, fail: { status: 500, times: 2 } });
    expectStatus(await postJson(url, chat('a 500'), auth(org)), 500);
    expectStatus(await postJson(url, chat('another 500'), auth(org)), 500);
    expectStatus(await postJson(url, chat('breaker open'), auth(org)), 503);
    gw.mock.setBehavior(null);
    await setPolicy(gw, org.orgId, { allowed_models: ['mistral-small-latest'] });
    expectStatus(await postJson(url, chat('refused', 'mistral-large-latest'), auth(org)), 403);
    await setPolicy(gw, org.orgId, { hitl_cost_threshold: 0.0000001 });
    expectStatus(await postJson(url, chat('held for approval'), auth(org)), 202);
    for (const id of ids) {
      const record = await recordOf(gw, id, org.orgId);
      expect(record).toMatchObject({ cost: 0, input_tokens: 0, output_tokens: 0, usage_source: 'none' });
      expect(record.estimated_cost).toBeGreaterThan(0);
      expect(await logs.accessLine(id)).toMatchObject({ cost: 0, input_tokens: 0, output_tokens: 0, usage_source: 'none' });
    }
    expect(await dailyCost(org, 0)).toBe(0);
  });

  it('charges the counted prompt of a request the provider got and never answered: past the first-byte deadline, a connection dropped', async () => {
    // On groq: these two failures open its breaker (threshold 2 here), and no other test calls it.
    const body = { model: 'openai/gpt-oss-120b', messages: [{ role: 'user', content: 'a prompt the provider never answers' }], max_tokens: 50 };
    for (const [behavior, status] of [[{ latencyMs: 1_000 }, 504], [{ drop: { times: 1 } }, 502]] as const) {
      const org = await createOrg(gw, 'growth');
      gw.mock.setBehavior({ match: { format: 'openai' }, ...behavior });
      const res = await postJson(`${gw.url}/v1/groq/chat/completions`, body, auth(org));
      expect(res.status).toBe(status);
      expect(gw.mock.requests.at(-1)?.route).toBe('openai.chat');
      gw.mock.setBehavior(null);
      const record = await expectAgreement(res.headers.get('x-svc-request-id') as string, org);
      expect(record).toMatchObject({ status_code: status, usage_source: 'estimate', input_tokens: record.replay.estimated_input_tokens, output_tokens: 0, upstream_latency_ms: null });
      // groq/openai/gpt-oss-120b: $0.15 per 1M input tokens.
      expect(record.input_tokens).toBeGreaterThan(0);
      expect(record.cost).toBeCloseTo((record.input_tokens * 0.15) / 1e6, 12);
    }
  });
});
