import OpenAI from 'openai';
import { asOrgId } from '@svc/domain';
import { UsageRecorder } from '@svc/proxy';
import { createOrg, expectGovernanceHeaders, GatewayHarness, openaiClient, PROVIDER_KEY, startGateway, usageOf } from './harness';

/** The official OpenAI SDK pointed at the gateway, unchanged. */
describe('gateway with the OpenAI SDK', () => {
  let gw: GatewayHarness;
  let client: OpenAI;

  beforeAll(async () => {
    gw = await startGateway({ env: { PLAN_DAILY_QUOTAS: 'free=1' } });
    client = openaiClient(gw);
  });
  afterAll(() => gw.stop());
  beforeEach(() => gw.mock.reset());

  it('proxies a chat completion and returns the provider body with governance headers', async () => {
    const { data, response } = await client.chat.completions
      .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hello there' }] })
      .withResponse();
    expect(data.object).toBe('chat.completion');
    expect(data.choices[0].message.content).toBe('mock reply to: Hello there');
    expect(data.usage?.prompt_tokens).toBeGreaterThan(0);
    expect(response.headers.get('x-svc-request-id')).toMatch(/^gw_/);
    expect(response.headers.get('x-gateway-org')).toBe(gw.orgId);
    for (const header of ['x-svc-cost', 'x-svc-daily-cost', 'x-svc-daily-budget', 'x-svc-governance-time-ms', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
      expect(response.headers.get(header)).not.toBeNull();
    }
    const upstream = gw.mock.requests.at(-1);
    expect(upstream?.path).toBe('/v1/chat/completions');
    expect(upstream?.headers.authorization).toBe(`Bearer ${PROVIDER_KEY}`);
    expect(upstream?.headers['x-svc-api-key']).toBeUndefined();
    expect(JSON.stringify(upstream?.headers)).not.toContain(gw.key);
  });

  it('streams chunks as they arrive, injecting include_usage and ending with the usage chunk', async () => {
    const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Stream me a reply' }], stream: true });
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('mock reply to: Stream me a reply');
    expect(usage?.completion_tokens).toBeGreaterThan(0);
    expect((gw.mock.requests.at(-1)?.body as { stream_options?: unknown }).stream_options).toEqual({ include_usage: true });
  });

  it('records usage and cost for a served request', async () => {
    const { response } = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Meter me' }] }).withResponse();
    const requestId = response.headers.get('x-svc-request-id') as string;
    const recorder = gw.service.apps[0].get(UsageRecorder);
    await recorder.flush();
    const record = await gw.repos.usage.findById(asOrgId(gw.orgId), requestId);
    expect(record).toMatchObject({ provider: 'openai', model: 'gpt-4o', status_code: 200, stream: false, agent: 'e2e' });
    expect(record?.input_tokens).toBeGreaterThan(0);
    expect(record?.cost).toBeGreaterThan(0);
  });

  it('creates embeddings and lists models', async () => {
    const embeddings = await client.embeddings.create({ model: 'text-embedding-3-small', input: 'vector me' });
    expect(embeddings.data[0].embedding.length).toBeGreaterThan(0);
    const models = await client.models.list();
    const ids = models.data.map((model) => model.id);
    expect(ids).toEqual(expect.arrayContaining(['gpt-4o']));
    expect(models.data[0]).toMatchObject({ object: 'model', created: 0 });
    // models.retrieve(), a provider/model id included; an unlisted id is 404 model_not_found.
    expect(await client.models.retrieve('gpt-4o')).toMatchObject({ id: 'gpt-4o', object: 'model', owned_by: 'openai' });
    const groq = ids.find((id) => id.startsWith('groq/')) as string;
    expect(await client.models.retrieve(groq)).toMatchObject({ id: groq, owned_by: 'groq' });
    const missing = await client.models.retrieve('no-such-model').catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
    expect((missing as InstanceType<typeof OpenAI.NotFoundError>).error).toMatchObject({ code: 'model_not_found', param: 'model' });
    expect(gw.mock.requests.filter((request) => request.path.includes('/models'))).toEqual([]);
  });

  it('works with baseURL {base_url}/v1/openai', async () => {
    const scoped = openaiClient(gw, '/v1/openai');
    const completion = await scoped.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'scoped' }] });
    expect(completion.choices[0].message.content).toBe('mock reply to: scoped');
    expect((await scoped.models.list()).data.every((model) => model.owned_by === 'openai')).toBe(true);
  });

  it("sends a claude- model on the generic endpoint to Anthropic's OpenAI-compatible endpoint, with x-api-key and anthropic-version", async () => {
    const completion = await client.chat.completions.create({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'compat' }] });
    expect(completion.choices[0].message.content).toBe('mock reply to: compat');
    const upstream = gw.mock.requests.at(-1);
    expect(upstream?.path).toBe('/v1/chat/completions');
    expect(upstream?.headers['x-api-key']).toBe(PROVIDER_KEY);
    expect(upstream?.headers['anthropic-version']).toBe('2023-06-01');
    expect(upstream?.headers.authorization).toBeUndefined();
  });

  it('meters a claude- model on the chat route by its format-A usage, and ends a broken stream with a format-A error', async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'compat usage' }];
    const whole = await client.chat.completions.create({ model: 'claude-sonnet-4-5', messages }).withResponse();
    const { data: stream, response } = await client.chat.completions.create({ model: 'claude-sonnet-4-5', messages, stream: true }).withResponse();
    let streamed: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) streamed = chunk.usage ?? streamed;
    for (const [usage, res] of [[whole.data.usage, whole.response], [streamed, response]] as const) {
      const record = await usageOf(gw, res.headers.get('x-svc-request-id'));
      expect(record).toMatchObject({ provider: 'anthropic', usage_source: 'provider', input_tokens: usage?.prompt_tokens, output_tokens: usage?.completion_tokens });
      expect(record?.cost).toBeGreaterThan(0);
    }
    gw.mock.setBehavior({ abort: { afterChunks: 2 } });
    const broken = await client.chat.completions.create({ model: 'claude-sonnet-4-5', messages, stream: true });
    const failure = await (async () => {
      for await (const chunk of broken) expect(chunk.object).toBe('chat.completion.chunk');
    })().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect((failure as InstanceType<typeof OpenAI.APIError>).code).toBe('upstream_stream_error');
  });

  it('routes provider/model explicitly and strips the prefix upstream', async () => {
    const completion = await client.chat.completions.create({ model: 'groq/llama-3.3-70b-versatile', messages: [{ role: 'user', content: 'groq please' }] });
    expect(completion.choices[0].message.content).toBe('mock reply to: groq please');
    expect(gw.mock.requests.at(-1)?.model).toBe('llama-3.3-70b-versatile');
  });

  it('auto-detects a D provider (mistral) on the generic endpoint', async () => {
    await client.chat.completions.create({ model: 'mistral-large-latest', messages: [{ role: 'user', content: 'bonjour' }] });
    expect(gw.mock.requests.at(-1)?.path).toBe('/v1/chat/completions');
    expect(gw.mock.requests.at(-1)?.model).toBe('mistral-large-latest');
  });

  it('translates provider C (gemini) to and from format A, streaming included', async () => {
    const gemini = openaiClient(gw, '/v1/gemini');
    const completion = await gemini.chat.completions.create({
      model: 'gemini-2.5-flash',
      messages: [
        { role: 'system', content: 'Be brief' },
        { role: 'user', content: 'Hi Gemini' },
      ],
      temperature: 0.5,
      max_tokens: 64,
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.choices[0].message.content).toBe('mock reply to: Hi Gemini');
    expect(completion.choices[0].finish_reason).toBe('stop');
    expect(completion.usage?.total_tokens).toBeGreaterThan(0);
    const upstream = gw.mock.requests.at(-1);
    expect(upstream?.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(upstream?.query.key).toBe(PROVIDER_KEY);
    expect(upstream?.gemini?.systemInstruction).toContain('Be brief');

    const stream = await gemini.chat.completions.create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'Stream Gemini' }], stream: true, stream_options: { include_usage: true } });
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('mock reply to: Stream Gemini');
    expect(usage?.total_tokens).toBeGreaterThan(0);
  });

  it('forwards any path of a D provider through the catch-all', async () => {
    const res = await fetch(`${gw.url}/v1/mistral/fine_tuning/jobs?limit=2`, { headers: { 'X-SVC-API-Key': gw.key, 'X-Provider-Key': PROVIDER_KEY } });
    expect(res.status).toBe(200);
    const echo = (await res.json()) as { method: string; path: string; query: Record<string, string>; headers: Record<string, string> };
    expect(echo).toMatchObject({ method: 'GET', path: '/v1/fine_tuning/jobs', query: { limit: '2' } });
    expect(echo.headers.authorization).toBe(`Bearer ${PROVIDER_KEY}`);
  });

  it('replays an idempotent chat completion and refuses the key with another body', async () => {
    const headers = { 'X-SVC-API-Key': gw.key, 'X-Provider-Key': PROVIDER_KEY, 'Idempotency-Key': `idem-${Date.now()}` };
    const body = { model: 'gpt-4o', messages: [{ role: 'user', content: 'once only' }] };
    const first = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const second = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    // A replay is a response too: it carries the rate-limit window and today's spend.
    expectGovernanceHeaders(second.headers, gw.orgId);
    expect(await second.text()).toBe(await first.text());
    expect(gw.mock.requests.filter((r) => r.route === 'openai.chat')).toHaveLength(1);
    const other = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ ...body, messages: [{ role: 'user', content: 'different' }] }) });
    expect(other.status).toBe(409);
    expect(((await other.json()) as { error: Record<string, unknown> }).error).toMatchObject({ type: 'invalid_request_error', code: 'idempotency_key_reused', param: 'Idempotency-Key' });
  });
  it('refuses a plan quota with x-should-retry: false, so the SDK raises at once instead of sleeping until midnight', async () => {
    const free = await createOrg(gw, 'free');
    const sdk = openaiClient(gw, '/v1', { apiKey: free.key, maxRetries: 2 });
    await sdk.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'first' }] });
    const started = Date.now();
    const err = await sdk.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'second' }] }, { signal: AbortSignal.timeout(5_000) })
      .then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect(err).toMatchObject({ status: 429, code: 'plan_limit_exceeded' });
    const headers = (err as InstanceType<typeof OpenAI.RateLimitError>).headers;
    expect(Number(headers?.get('retry-after'))).toBeGreaterThan(0);
    expect(headers?.get('x-should-retry')).toBe('false');
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
