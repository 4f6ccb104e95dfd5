import Anthropic from '@anthropic-ai/sdk';
import { GatewayHarness, postJson, PROVIDER_KEY, startGateway } from './harness';

/** The official Anthropic SDK pointed at the gateway, unchanged. */
describe('gateway with the Anthropic SDK', () => {
  let gw: GatewayHarness;

  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(() => gw.stop());
  beforeEach(() => gw.mock.reset());

  it.each([
    ['{base_url}', ''],
    ['{base_url}/v1/anthropic', '/v1/anthropic'],
  ])('creates a message with baseURL %s and sends x-api-key and anthropic-version 2023-06-01 upstream', async (_label, suffix) => {
    const client = new Anthropic({ apiKey: gw.key, baseURL: `${gw.url}${suffix}`, defaultHeaders: { 'X-Provider-Key': PROVIDER_KEY }, maxRetries: 0 });
    const message = await client.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 100, messages: [{ role: 'user', content: 'Hello Claude' }] });
    expect(message.type).toBe('message');
    expect(message.content[0]).toMatchObject({ type: 'text', text: 'mock reply to: Hello Claude' });
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    const upstream = gw.mock.requests.at(-1);
    expect(upstream?.path).toBe('/v1/messages');
    expect(upstream?.headers['x-api-key']).toBe(PROVIDER_KEY);
    expect(upstream?.headers['anthropic-version']).toBe('2023-06-01');
    expect(upstream?.headers.authorization).toBeUndefined();
  });

  it('streams a message with usage from message_start and message_delta', async () => {
    const client = new Anthropic({ apiKey: gw.key, baseURL: gw.url, defaultHeaders: { 'X-Provider-Key': PROVIDER_KEY }, maxRetries: 0 });
    const stream = client.messages.stream({ model: 'claude-haiku-4-5', max_tokens: 100, messages: [{ role: 'user', content: 'Stream Claude' }] });
    const final = await stream.finalMessage();
    expect(final.content[0]).toMatchObject({ type: 'text', text: 'mock reply to: Stream Claude' });
    expect(final.usage.output_tokens).toBeGreaterThan(0);
  });

  it('estimates X-SVC-Cost with the input at the cache-write price when a block carries cache_control', async () => {
    const client = new Anthropic({ apiKey: gw.key, baseURL: gw.url, defaultHeaders: { 'X-Provider-Key': PROVIDER_KEY }, maxRetries: 0 });
    const instructions = 'Answer as a careful reviewer of TypeScript pull requests. '.repeat(200);
    const costWith = async (cacheControl?: Anthropic.CacheControlEphemeral) => {
      const system = [{ type: 'text' as const, text: instructions, ...(cacheControl ? { cache_control: cacheControl } : {}) }];
      const { response } = await client.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 20, system, messages: [{ role: 'user', content: 'Hi' }] }).withResponse();
      return Number(response.headers.get('x-svc-cost'));
    };
    const plain = await costWith();
    const fiveMinutes = await costWith({ type: 'ephemeral' });
    const oneHour = await costWith({ type: 'ephemeral', ttl: '1h' });
    // claude-sonnet-4: 3 input, 3.75 written for 5 minutes, 6 for an hour, per 1M; the 20 output tokens cost the same.
    const output = (20 * 15) / 1e6;
    expect(plain).toBeGreaterThan(output);
    expect((fiveMinutes - output) / (plain - output)).toBeCloseTo(1.25, 2);
    expect((oneHour - output) / (plain - output)).toBeCloseTo(2, 2);
    expect(gw.mock.requests.at(-1)?.body).toMatchObject({ system: [{ cache_control: { type: 'ephemeral', ttl: '1h' } }] });
  });

  it('reads a gateway key sent as x-api-key on B routes, and the provider key from Authorization', async () => {
    const res = await postJson(
      `${gw.url}/v1/messages`,
      { model: 'claude-sonnet-4-6', max_tokens: 50, messages: [{ role: 'user', content: 'keys' }] },
      { 'x-api-key': gw.key, Authorization: `Bearer ${PROVIDER_KEY}` },
    );
    expect(res.status).toBe(200);
    expect(gw.mock.requests.at(-1)?.headers['x-api-key']).toBe(PROVIDER_KEY);
  });

  it('400 provider_mismatch when a model of another family is sent to the messages route', async () => {
    const res = await postJson(`${gw.url}/v1/anthropic/messages`, { model: 'gpt-4o', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }, { 'X-SVC-API-Key': gw.key, 'X-Provider-Key': PROVIDER_KEY });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'provider_mismatch' });
    expect(gw.mock.requests).toHaveLength(0);
  });

  it.each([
    ['{base_url}/v1/anthropic', '/v1/anthropic'],
    ['{base_url}', ''],
  ])("lists models with the SDK's models.list() and baseURL %s, with a gateway:read key", async (_label, suffix) => {
    const reader = await gw.newKey(['gateway:read']);
    const client = new Anthropic({ apiKey: reader, baseURL: `${gw.url}${suffix}`, maxRetries: 0 });
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).toContain('claude-sonnet-4-5');
    if (suffix) expect(ids.every((id) => id.startsWith('claude-'))).toBe(true);
    const raw = await fetch(`${gw.url}${suffix || '/v1/anthropic'}/v1/models`, { headers: { 'x-api-key': reader } });
    expect({ status: raw.status, id: raw.headers.get('x-svc-request-id') }).toEqual({ status: 200, id: expect.stringMatching(/^gw_/) });
    const page = (await raw.json()) as { data: { type: string; id: string; display_name: string; created_at: string }[]; has_more: boolean; first_id: string };
    expect(page).toMatchObject({ has_more: false, first_id: page.data[0].id });
    expect(page.data[0]).toEqual({ type: 'model', id: expect.stringMatching(/^claude-/), display_name: expect.any(String), created_at: '1970-01-01T00:00:00.000Z' });
    expect(gw.mock.requests).toHaveLength(0);
  });

  it('400 when max_tokens is missing on the messages route', async () => {
    const res = await postJson(`${gw.url}/v1/messages`, { model: 'claude-sonnet-4-6', messages: [{ role: 'user', content: 'x' }] }, { 'X-SVC-API-Key': gw.key, 'X-Provider-Key': PROVIDER_KEY });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'max_tokens' });
  });
});
