import Anthropic from '@anthropic-ai/sdk';
import { MIN_CACHEABLE_TOKENS } from '@svc/mock-provider';
import { clearOfMinuteEdge } from '@svc/testing';
import { anthropicFailure, createOrg, GatewayHarness, Json, PROVIDER_KEY, setPolicy, startGateway, usageOf } from './harness';

/** claude-sonnet-4-6, USD per 1M tokens: input, 5-minute cache write, 1-hour cache write, cache read, output. */
const PRICE = { input: 3, write5m: 3.75, write1h: 6, read: 0.3, output: 15 };

/** What the provider's usage costs, as a user would compute it from the Messages API's usage object. */
function costOfUsage(usage: Anthropic.Usage): number {
  const split = usage.cache_creation ?? { ephemeral_5m_input_tokens: usage.cache_creation_input_tokens ?? 0, ephemeral_1h_input_tokens: 0 };
  return (
    (usage.input_tokens * PRICE.input +
      split.ephemeral_5m_input_tokens * PRICE.write5m +
      split.ephemeral_1h_input_tokens * PRICE.write1h +
      (usage.cache_read_input_tokens ?? 0) * PRICE.read +
      usage.output_tokens * PRICE.output) /
    1e6
  );
}

/**
 * The official Anthropic SDK against the gateway's B routes, with the mock speaking the Messages
 * API's real wire features: thinking, tool use, prompt caching, in-stream errors, request ids.
 */
describe('gateway with the Anthropic SDK: usage, headers, errors and retries', () => {
  let gw: GatewayHarness;
  const client = (options: ConstructorParameters<typeof Anthropic>[0] = {}) =>
    new Anthropic({ apiKey: gw.key, baseURL: gw.url, defaultHeaders: { 'X-Provider-Key': PROVIDER_KEY }, maxRetries: 0, ...options });
  const anthropicBreaker = async (): Promise<Json> => {
    const health = (await (await fetch(`${gw.url}/v1/providers/health`)).json()) as { providers: Json[] };
    return health.providers.find((p) => p.provider === 'anthropic') as Json;
  };

  beforeAll(async () => {
    gw = await startGateway({ env: { PLAN_DAILY_QUOTAS: 'free=1' } });
  });
  afterAll(() => gw.stop());
  beforeEach(() => gw.mock.reset());

  it('records the provider usage and its cost for thinking, tool use, cache writes and reads, streamed and whole', async () => {
    const sdk = client();
    const tools: Anthropic.Tool[] = [{ name: 'get_weather', description: 'Weather of a city', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }];
    const system: Anthropic.TextBlockParam[] = [{ type: 'text', text: 'You review TypeScript carefully. '.repeat(MIN_CACHEABLE_TOKENS / 6), cache_control: { type: 'ephemeral', ttl: '1h' } }];
    const params = { model: 'claude-sonnet-4-6', max_tokens: 2048, system, tools, thinking: { type: 'enabled' as const, budget_tokens: 1024 }, messages: [{ role: 'user' as const, content: 'call get_weather for Paris' }] };

    // First call writes the prompt to the 1-hour cache; the streamed second one reads it back.
    const { data: whole, response } = await sdk.messages.create(params).withResponse();
    expect(whole.usage.cache_creation?.ephemeral_1h_input_tokens).toBeGreaterThan(MIN_CACHEABLE_TOKENS);
    const stream = sdk.messages.stream(params);
    const streamed = await stream.finalMessage();
    const { response: streamResponse } = await stream.withResponse();
    expect(streamed.usage.cache_read_input_tokens).toBe(whole.usage.cache_creation_input_tokens);
    for (const message of [whole, streamed]) {
      expect(message.stop_reason).toBe('tool_use');
      expect(message.content.map((block) => block.type)).toEqual(['thinking', 'tool_use']);
      expect(message.content[1]).toMatchObject({ type: 'tool_use', name: 'get_weather', input: { city: 'mock' } });
    }
    for (const [message, res] of [[whole, response], [streamed, streamResponse]] as const) {
      const record = await usageOf(gw, res.headers.get('x-svc-request-id'));
      const u = message.usage;
      expect(record).toMatchObject({ status_code: 200, input_tokens: u.input_tokens + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0), output_tokens: u.output_tokens });
      expect(record?.cost).toBeCloseTo(costOfUsage(u), 12);
    }
  });

  it('forwards anthropic-beta, replaces the client anthropic-version with 2023-06-01, and relays the provider request-id on streams too', async () => {
    const sdk = client();
    const beta = await sdk.beta.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 50, betas: ['interleaved-thinking-2025-05-14'], messages: [{ role: 'user', content: 'beta' }] });
    expect(beta.content[0]).toMatchObject({ type: 'text' });
    const upstream = gw.mock.requests.at(-1);
    expect(upstream?.headers).toMatchObject({ 'anthropic-beta': 'interleaved-thinking-2025-05-14', 'anthropic-version': '2023-06-01', 'x-api-key': PROVIDER_KEY });
    expect(upstream?.headers.authorization).toBeUndefined();

    const whole = await sdk.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 50, messages: [{ role: 'user', content: 'id' }] });
    expect(whole._request_id).toBe(`req_mock${gw.mock.requests.at(-1)?.seq}`);
    const stream = sdk.messages.stream({ model: 'claude-sonnet-4-6', max_tokens: 50, messages: [{ role: 'user', content: 'id' }] });
    await stream.finalMessage();
    expect(stream.request_id).toBe(`req_mock${gw.mock.requests.at(-1)?.seq}`);
    expect(stream.response?.headers.get('x-svc-request-id')).toMatch(/^gw_/);
  });

  it.each([
    ['{base_url}', ''],
    ['{base_url}/v1/anthropic', '/v1/anthropic'],
  ])('answers messages.countTokens() with baseURL %s: 404 not_found naming count_tokens, with or without a key', async (_label, suffix) => {
    for (const apiKey of [gw.key, 'sk-ant-not-a-gateway-key']) {
      const err = await anthropicFailure(client({ apiKey, baseURL: `${gw.url}${suffix}` }).messages.countTokens({ model: 'claude-sonnet-4-6', messages: [{ role: 'user', content: 'count' }] }));
      expect(err).toBeInstanceOf(Anthropic.NotFoundError);
      expect(err.type).toBe('not_found_error');
      expect(err.apiMessage).toContain('does not offer token counting (messages/count_tokens)');
      expect(err.error).toMatchObject({ error: { code: 'not_found', param: null } });
      expect(err.headers?.get('x-svc-request-id')).toMatch(/^gw_/);
    }
    expect(gw.mock.requests).toHaveLength(0);
  });

  it("surfaces the gateway's refusals as the SDK's error classes, with the gateway's message readable", async () => {
    const missing = await anthropicFailure(client({ apiKey: 'sk-ant-provider-only' }).messages.create({ model: 'claude-sonnet-4-6', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }));
    expect(missing).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(missing.apiMessage).toMatch(/^Missing gateway API key/);
    expect(missing.message).toContain('GW_AUTH_001');

    const org = await createOrg(gw, 'enterprise');
    await setPolicy(gw, org.orgId, { rpm_limit: 1, allowed_models: ['claude-haiku-4-5'] });
    await clearOfMinuteEdge();
    const sdk = client({ apiKey: org.key });
    const notAllowed = await anthropicFailure(sdk.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }));
    expect(notAllowed).toBeInstanceOf(Anthropic.PermissionDeniedError);
    expect(notAllowed).toMatchObject({ status: 403, type: 'permission_error', error: { error: { code: 'model_not_allowed' } } });
    const limited = await anthropicFailure(sdk.messages.create({ model: 'claude-haiku-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }));
    expect(limited).toBeInstanceOf(Anthropic.RateLimitError);
    expect(limited.apiMessage).toBe('Rate limit exceeded: 2/1 requests per minute');
    expect(Number(limited.headers?.get('retry-after'))).toBeGreaterThan(0);
    // A per-minute limit is worth the SDK's own retry after Retry-After: nothing tells it otherwise.
    expect(limited.headers?.get('x-should-retry')).toBeNull();
  });

  it('refuses a plan quota with x-should-retry: false, so the SDK does not sleep until midnight to retry', async () => {
    const free = await createOrg(gw, 'free');
    const sdk = client({ apiKey: free.key, maxRetries: 2 });
    await sdk.messages.create({ model: 'claude-haiku-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'first' }] });
    const controller = new AbortController();
    const waited = setTimeout(() => controller.abort(), 5_000);
    const started = Date.now();
    const err = await anthropicFailure(sdk.messages.create({ model: 'claude-haiku-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'second' }] }, { signal: controller.signal }));
    clearTimeout(waited);
    expect(err).toBeInstanceOf(Anthropic.RateLimitError);
    expect(err).toMatchObject({ type: 'insufficient_quota', error: { error: { code: 'plan_limit_exceeded', gateway_error_code: 'GW_PLAN_002' } } });
    expect(Number(err.headers?.get('retry-after'))).toBeGreaterThan(0);
    expect(err.headers?.get('x-should-retry')).toBe('false');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("relays a provider 529 with its retry headers (the SDK's retry then succeeds) and counts it against the breaker", async () => {
    const before = (await anthropicBreaker()).failure_count as number;
    gw.mock.setBehavior({ match: { format: 'anthropic' }, fail: { status: 529, headers: { 'retry-after-ms': '20', 'x-should-retry': 'true' } } });
    const overloaded = await anthropicFailure(client().messages.create({ model: 'claude-sonnet-4-6', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }));
    expect(overloaded).toBeInstanceOf(Anthropic.OverloadedError);
    expect(overloaded).toMatchObject({ status: 529, type: 'overloaded_error' });

    gw.mock.setBehavior({ match: { format: 'anthropic' }, fail: { status: 529, headers: { 'retry-after-ms': '20' } } });
    const retried = await client({ maxRetries: 2 }).messages.create({ model: 'claude-sonnet-4-6', max_tokens: 10, messages: [{ role: 'user', content: 'again' }] });
    expect(retried.type).toBe('message');
    expect(gw.mock.requests.map((r) => r.path)).toEqual(['/v1/messages', '/v1/messages', '/v1/messages']);
    expect((await anthropicBreaker()).failure_count).toBe(before + 2);
  });

  it('counts an overloaded_error inside a started stream against the breaker, and the SDK raises it', async () => {
    const before = (await anthropicBreaker()).failure_count as number;
    gw.mock.setBehavior({ match: { format: 'anthropic' }, streamError: { afterChunks: 1, type: 'overloaded_error' } });
    const err = await anthropicFailure(client().messages.stream({ model: 'claude-sonnet-4-6', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }).finalMessage());
    expect(err).toMatchObject({ type: 'overloaded_error', apiMessage: 'Overloaded' });
    expect((await anthropicBreaker()).failure_count).toBe(before + 1);

    // A client-side error type in a stream is not the provider failing.
    gw.mock.setBehavior({ match: { format: 'anthropic' }, streamError: { afterChunks: 1, type: 'invalid_request_error', message: 'bad' } });
    await anthropicFailure(client().messages.stream({ model: 'claude-sonnet-4-6', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }).finalMessage());
    expect((await anthropicBreaker()).failure_count).toBe(before + 1);
  });
});
