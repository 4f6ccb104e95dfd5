import Anthropic from '@anthropic-ai/sdk';
import { anthropicFailure, createOrg, GatewayHarness, PROVIDER_KEY, recordOf, startGateway } from './harness';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What a user of the Anthropic SDK calls beyond `create()`: the stream helper's events, aborting it, and both base URLs. */
describe('gateway with the Anthropic SDK: stream events, abort, base URLs', () => {
  let gw: GatewayHarness;
  const client = (options: ConstructorParameters<typeof Anthropic>[0] = {}) =>
    new Anthropic({ apiKey: gw.key, baseURL: gw.url, defaultHeaders: { 'X-Provider-Key': PROVIDER_KEY }, maxRetries: 0, ...options });
  const tools: Anthropic.Tool[] = [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } } } }];

  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(() => gw.stop());
  beforeEach(() => gw.mock.reset());

  it.each([
    ['{base_url}', ''],
    ['{base_url}/v1/anthropic', '/v1/anthropic'],
  ])('messages.stream() with baseURL %s: text, inputJson and contentBlock events, finalMessage() and finalText()', async (_label, suffix) => {
    const sdk = client({ baseURL: `${gw.url}${suffix}` });
    const texts: string[] = [];
    const stream = sdk.messages.stream({ model: 'claude-sonnet-4-6', max_tokens: 200, messages: [{ role: 'user', content: 'Say hello' }] });
    stream.on('text', (delta) => texts.push(delta));
    expect(await stream.finalText()).toBe('mock reply to: Say hello');
    expect(texts.join('')).toBe('mock reply to: Say hello');

    const jsonSnapshots: unknown[] = [];
    const blocks: string[] = [];
    const events = new Set<string>();
    const tooling = sdk.messages.stream({ model: 'claude-sonnet-4-6', max_tokens: 200, tools, tool_choice: { type: 'tool', name: 'get_weather' }, messages: [{ role: 'user', content: 'Weather?' }] });
    tooling.on('inputJson', (_partial, snapshot) => jsonSnapshots.push(snapshot));
    tooling.on('contentBlock', (block) => blocks.push(block.type));
    tooling.on('streamEvent', (event) => events.add(event.type));
    const final = await tooling.finalMessage();
    expect(final).toMatchObject({ stop_reason: 'tool_use', content: [{ type: 'tool_use', name: 'get_weather', input: { city: 'mock', days: 1 } }] });
    expect(jsonSnapshots.at(-1)).toEqual({ city: 'mock', days: 1 });
    expect(blocks).toEqual(['tool_use']);
    expect([...events]).toEqual(expect.arrayContaining(['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']));
    const { response } = await tooling.withResponse();
    expect(await recordOf(gw, response.headers.get('x-svc-request-id'))).toMatchObject({ provider: 'anthropic', stream: true, usage_source: 'provider', output_tokens: final.usage.output_tokens });
    expect(gw.mock.requests.map((request) => request.path)).toEqual(['/v1/messages', '/v1/messages']);
  });

  it('stream.abort() mid-stream: the gateway aborts the upstream request and records 499, charged what was relayed', async () => {
    const org = await createOrg(gw, 'growth');
    gw.mock.setBehavior({ match: { format: 'anthropic' }, chunkDelayMs: 1000 });
    const stream = client({ apiKey: org.key }).messages.stream({ model: 'claude-sonnet-4-6', max_tokens: 200, messages: [{ role: 'user', content: 'abandon me' }] });
    const aborted = anthropicFailure(stream.finalMessage()).catch((error: unknown) => error);
    await new Promise((resolve) => stream.once('streamEvent', resolve));
    const { response } = await stream.withResponse();
    stream.abort();
    expect(await aborted).toBeInstanceOf(Anthropic.APIUserAbortError);
    const upstream = gw.mock.requests.at(-1);
    for (let i = 0; i < 100 && upstream?.clientClosedAt === undefined; i++) await sleep(10);
    expect(upstream?.clientClosedAt).toBeDefined();
    const record = await recordOf(gw, response.headers.get('x-svc-request-id'), org.orgId);
    expect(record).toMatchObject({ status_code: 499, stream: true, usage_source: 'estimate' });
    expect(record.input_tokens).toBeGreaterThan(0);
  });

  it("the SDK retries a provider 429 after its retry-after-ms, streamed too, then succeeds", async () => {
    const sdk = client({ maxRetries: 1 });
    for (const streamed of [false, true]) {
      gw.mock.reset();
      gw.mock.setBehavior({ match: { format: 'anthropic' }, fail: { status: 429, headers: { 'retry-after-ms': '50' } } });
      const params = { model: 'claude-sonnet-4-6', max_tokens: 50, messages: [{ role: 'user' as const, content: 'retry' }] };
      const message = streamed ? await sdk.messages.stream(params).finalMessage() : await sdk.messages.create(params);
      expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: 'mock reply to: retry' })]);
      expect(gw.mock.requests).toHaveLength(2);
    }
  });
});
