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

  it('400 when max_tokens is missing on the messages route', async () => {
    const res = await postJson(`${gw.url}/v1/messages`, { model: 'claude-sonnet-4-6', messages: [{ role: 'user', content: 'x' }] }, { 'X-SVC-API-Key': gw.key, 'X-Provider-Key': PROVIDER_KEY });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'max_tokens' });
  });
});
