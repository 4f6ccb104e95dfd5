import type { IncomingMessage } from 'node:http';
import { request as httpRequest } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { UsageRecordEntity } from '@svc/domain';
import { asOrgId } from '@svc/domain';
import { costOf } from '@svc/governance';
import { UsageRecorder } from '@svc/proxy';
import { createOrg, GatewayHarness, metricSum, postJson, PROVIDER_KEY, startGateway, usageOf } from './harness';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A client that goes away mid-stream: the upstream request ends at once, and what was relayed is charged. */
describe('gateway when the client disconnects mid-stream', () => {
  let gw: GatewayHarness;

  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(() => gw.stop());
  beforeEach(() => gw.mock.reset());

  /**
   * Starts a slow-drip stream, reads its first chunk and aborts (calling `beforeAbort` just before);
   * returns the request id and when it aborted.
   */
  async function abandonStream(key: string, content: string, beforeAbort?: () => void): Promise<{ requestId: string; abortedAt: number }> {
    const controller = new AbortController();
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'X-SVC-API-Key': key, 'X-Provider-Key': PROVIDER_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content }], max_tokens: 400, stream: true }),
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    const first = await res.body?.getReader().read();
    expect(new TextDecoder().decode(first?.value)).toContain('data: ');
    beforeAbort?.();
    const abortedAt = Date.now();
    controller.abort();
    return { requestId: res.headers.get('x-svc-request-id') as string, abortedAt };
  }

  /** The only usage record of an organization: a request its client left has no answer, so no request id to look it up by. */
  async function onlyRecord(orgId: string): Promise<UsageRecordEntity> {
    let records: UsageRecordEntity[] = [];
    for (let i = 0; i < 40 && records.length === 0; i++) {
      await gw.service.apps[0].get(UsageRecorder).flush();
      records = (await gw.repos.usage.listRange(asOrgId(orgId), { from: new Date(Date.now() - 60_000) })).items;
      if (records.length === 0) await sleep(50);
    }
    expect(records).toHaveLength(1);
    return records[0];
  }

  /**
   * The organization's daily cost as its next request reports it, once a charge was settled
   * (asynchronously). The next requests go to ollama, which costs nothing, so only the charge counts.
   */
  async function settledDailyCost(key: string): Promise<number> {
    gw.mock.setBehavior(null);
    let daily = 0;
    for (let i = 0; i < 20 && daily === 0; i++) {
      const next = await postJson(`${gw.url}/v1/chat/completions`, { model: 'ollama/llama3.2', messages: [{ role: 'user', content: `next ${i}` }] }, { 'X-SVC-API-Key': key, 'X-Provider-Key': PROVIDER_KEY });
      expect(next.status).toBe(200);
      daily = Number(next.headers.get('x-svc-daily-cost'));
      if (daily === 0) await sleep(50);
    }
    return daily;
  }

  it('closes the upstream connection within 200 ms of the client aborting a slow-drip stream', async () => {
    gw.mock.setBehavior({ match: { format: 'openai' }, chunkDelayMs: 2000 });
    // The gateway, the mock and this test share one event loop: on a loaded machine every callback,
    // the mock's 'close' included, runs late. The longest the loop was held up from the abort on (a
    // collection, the machine) is added to the bound.
    const loopDelay = monitorEventLoopDelay({ resolution: 5 });
    const { abortedAt } = await abandonStream(gw.key, 'a stream the client leaves early', () => loopDelay.enable());
    const upstream = gw.mock.requests.at(-1);
    expect(upstream?.route).toBe('openai.chat');
    for (let i = 0; i < 100 && upstream?.clientClosedAt === undefined; i++) await sleep(10);
    loopDelay.disable();
    const lag = loopDelay.max / 1e6;
    expect(upstream?.clientClosedAt).toBeDefined();
    // At once, not when the next chunk (2 s later) fails to write.
    expect((upstream?.clientClosedAt as number) - abortedAt).toBeLessThan(200 + lag);
  });

  it('closes the upstream connection of a non-streamed request when its client goes away first, and records 499', async () => {
    const org = await createOrg(gw, 'growth');
    gw.mock.setBehavior({ match: { format: 'openai' }, latencyMs: 3000 });
    const controller = new AbortController();
    const answer = fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'X-SVC-API-Key': org.key, 'X-Provider-Key': PROVIDER_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'a slow answer nobody waits for' }] }),
      signal: controller.signal,
    });
    let upstream = gw.mock.requests.at(-1);
    for (let i = 0; i < 200 && upstream?.route !== 'openai.chat'; i++) {
      await sleep(10);
      upstream = gw.mock.requests.at(-1);
    }
    expect(upstream?.route).toBe('openai.chat');
    const abortedAt = Date.now();
    controller.abort();
    await expect(answer).rejects.toThrow();
    for (let i = 0; i < 100 && upstream?.clientClosedAt === undefined; i++) await sleep(10);
    // Long before the mock's 3 s answer.
    expect((upstream?.clientClosedAt as number) - abortedAt).toBeLessThan(1000);
    expect(await onlyRecord(org.orgId)).toMatchObject({ status_code: 499, stream: false, provider: 'openai' });
  });

  it.each([false, true])(
    'charges a request (stream: %s) its client left before the provider answered the prompt stage 2 counted, in the record, the metric and the counters',
    async (stream) => {
      const org = await createOrg(gw, 'growth');
      // The mock holds back its headers: a whole answer, or a stream's first byte.
      gw.mock.setBehavior({ match: { format: 'openai' }, latencyMs: 3000 });
      const costBefore = await metricSum(gw, 'svc_gateway_cost_usd_total', { provider: 'openai' });
      const controller = new AbortController();
      const answer = fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'X-SVC-API-Key': org.key, 'X-Provider-Key': PROVIDER_KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'an expensive prompt, and the client hangs up before the answer' }], max_tokens: 400, stream }),
        signal: controller.signal,
      });
      // Leaves once the provider has the request.
      for (let i = 0; i < 200 && gw.mock.requests.at(-1)?.route !== 'openai.chat'; i++) await sleep(10);
      expect(gw.mock.requests.at(-1)?.route).toBe('openai.chat');
      controller.abort();
      await expect(answer).rejects.toThrow();

      const record = await onlyRecord(org.orgId);
      // 499 as before; no provider headers came (no upstream latency), yet the provider has the prompt.
      expect(record).toMatchObject({ status_code: 499, stream, provider: 'openai', model: 'gpt-4o', usage_source: 'estimate', output_tokens: 0, upstream_latency_ms: null });
      expect(record.input_tokens).toBe(record.replay.estimated_input_tokens);
      expect(record.input_tokens).toBeGreaterThan(0);
      expect(record.cost).toBeGreaterThan(0);
      expect(record.cost).toBeCloseTo(costOf('gpt-4o', { input_tokens: record.input_tokens, output_tokens: 0 }), 12);
      expect(await metricSum(gw, 'svc_gateway_cost_usd_total', { provider: 'openai' })).toBeGreaterThan(costBefore);
      expect(Math.abs((await settledDailyCost(org.key)) - record.cost)).toBeLessThanOrEqual(1e-6); // settled in micro-dollars
    },
  );

  it('charges an aborted stream whose usage chunk never came its counted input and the text relayed, and records those tokens', async () => {
    const org = await createOrg(gw, 'growth');
    gw.mock.setBehavior({ match: { format: 'openai' }, chunkDelayMs: 300 });
    const costBefore = await metricSum(gw, 'svc_gateway_cost_usd_total', { provider: 'openai' });
    // Reads until two words of the answer arrived (the mock sends one every 300 ms), then leaves.
    const controller = new AbortController();
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'X-SVC-API-Key': org.key, 'X-Provider-Key': PROVIDER_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'charge me even though I leave' }], max_tokens: 400, stream: true }),
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    const requestId = res.headers.get('x-svc-request-id') as string;
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    let buffered = '';
    while (!text.startsWith('mock reply ')) {
      const { value } = await reader.read();
      buffered += new TextDecoder().decode(value);
      const events = buffered.split('\n\n');
      buffered = events.pop() ?? '';
      for (const event of events) text += (JSON.parse(event.slice('data: '.length)) as { choices: { delta: { content?: string } }[] }).choices[0]?.delta.content ?? '';
    }
    controller.abort();
    expect(text).toBe('mock reply ');
    await sleep(400);
    const record = await usageOf(gw, requestId, org.orgId);
    expect(record).toMatchObject({ status_code: 499, stream: true, provider: 'openai', model: 'gpt-4o' });
    // The provider never reported usage (the final chunk did not come): the record says what the
    // request was charged, the prompt as counted for the estimate and the text relayed at 4 characters a token.
    expect(record).toMatchObject({ usage_source: 'estimate', input_tokens: record?.replay.estimated_input_tokens, output_tokens: Math.ceil(text.length / 4) });
    expect(record?.input_tokens).toBeGreaterThan(0);
    expect(record?.cost).toBeCloseTo(costOf('gpt-4o', { input_tokens: record?.input_tokens, output_tokens: record?.output_tokens }), 12);
    expect(record?.cost).toBeLessThanOrEqual(record?.estimated_cost ?? 0);
    expect(await metricSum(gw, 'svc_gateway_cost_usd_total', { provider: 'openai' })).toBeGreaterThan(costBefore);

    // The organization's daily cost, as the next request reports it, is that charge.
    const daily = await settledDailyCost(org.key);
    expect(daily).toBeGreaterThan(0);
    expect(Math.abs(daily - (record?.cost ?? 0))).toBeLessThanOrEqual(1e-6); // settled in micro-dollars
  });
});

/** A client that reads slower than the provider streams: the gateway holds the provider back instead of buffering. */
describe('gateway when the client reads a stream slower than the provider writes it', () => {
  let gw: GatewayHarness;

  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(() => gw.stop());

  it('relays every event of a ~9 MB stream in order, with its usage, to a client that stops reading for a while', async () => {
    // 6,000 words of ~1.5 KB: the mock writes them all at once, far more than the sockets between
    // gateway and client hold, so the gateway must pause its read of the provider until the client drains.
    const words = Array.from({ length: 6_000 }, (_, i) => `${String(i).padStart(5, '0')}${'x'.repeat(1_500)} `);
    const reply = words.join('');
    gw.mock.setBehavior({ match: { format: 'openai' }, reply });
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = httpRequest(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'X-SVC-API-Key': gw.key, 'X-Provider-Key': PROVIDER_KEY, 'content-type': 'application/json' },
      });
      req.once('response', resolve);
      req.once('error', reject);
      req.end(JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'a long answer, read slowly' }], stream: true }));
    });
    expect(res.statusCode).toBe(200);
    res.pause();
    await sleep(500);
    const chunks: Buffer[] = [];
    for await (const chunk of res) chunks.push(chunk as Buffer);
    const events = Buffer.concat(chunks).toString('utf8').split('\n\n').filter(Boolean);
    expect(events.at(-1)).toBe('data: [DONE]');
    const parsed = events.slice(0, -1).map((event) => JSON.parse(event.slice('data: '.length)) as { choices: { delta?: { content?: string } }[] });
    expect(parsed.map((chunk) => chunk.choices[0]?.delta?.content ?? '').join('')).toBe(reply);

    const requestId = res.headers['x-svc-request-id'] as string;
    let record: UsageRecordEntity | null = null;
    for (let i = 0; i < 40 && !record; i++) {
      record = await usageOf(gw, requestId);
      if (!record) await sleep(50);
    }
    expect(record).toMatchObject({ status_code: 200, stream: true, provider: 'openai', output_tokens: Math.ceil(reply.length / 4) });
  });
});
