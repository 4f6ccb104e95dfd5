import Anthropic from '@anthropic-ai/sdk';
import { createOrg, GatewayHarness, openaiClient, PROVIDER_KEY, recordOf, startGateway, TestOrg } from './harness';

/** USD per 1M tokens, copied from the vendors' price pages (not read from the gateway's table). */
const GROK_3_MINI = { input: 0.3, output: 0.5 };
/** Claude Opus 5.5 (claude-opus-latest): platform.claude.com/docs/zh-CN/models/opus-5-5/overview, read 2026-11-25. */
const CLAUDE_OPUS_5_5 = { input: 4, write5m: 5, read: 0.2, output: 20 };
const CLAUDE_SONNET_5 = { input: 2, output: 10 };

/**
 * The recorded cost of a call against a cost computed here from the vendors' prices, through the
 * official SDKs, where the provider's usage or the model's name needs care: xAI's reasoning tokens
 * (outside `completion_tokens`), the built-in aliases of the newest models.
 */
describe('gateway metering: recorded cost against the vendors\' prices', () => {
  let gw: GatewayHarness;
  let org: TestOrg;

  beforeAll(async () => {
    gw = await startGateway();
    org = await createOrg(gw, 'enterprise');
  });
  afterAll(() => gw.stop());
  beforeEach(() => gw.mock.reset());

  /** The mock answers the next matching request with `body` (a canned provider answer, status 200). */
  const answerWith = (path: string, body: unknown) => gw.mock.setBehavior({ match: { path }, fail: { status: 200, body } });
  const completion = (model: string, usage: unknown) => ({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: 'hi', refusal: null }, logprobs: null, finish_reason: 'stop' }],
    usage,
  });

  it('xAI: reasoning tokens reported beside completion_tokens (total = prompt + completion + reasoning) are charged as output', async () => {
    // xAI's usage: `completion_tokens` is the answer only; its `total_tokens` counts the reasoning on top.
    const usage = { prompt_tokens: 100, completion_tokens: 10, total_tokens: 410, completion_tokens_details: { reasoning_tokens: 300 } };
    answerWith('/chat/completions', completion('grok-3-mini', usage));
    const res = await openaiClient(gw, '/v1/xai', { apiKey: org.key })
      .chat.completions.create({ model: 'grok-3-mini', messages: [{ role: 'user', content: 'Think first' }] })
      .withResponse();
    expect(res.data.usage).toEqual(usage); // relayed unchanged
    const record = await recordOf(gw, res.response.headers.get('x-svc-request-id'), org.orgId);
    expect(record).toMatchObject({ provider: 'xai', usage_source: 'provider', input_tokens: 100, output_tokens: 310 });
    expect(record.cost).toBeCloseTo((100 * GROK_3_MINI.input + 310 * GROK_3_MINI.output) / 1e6, 12);

    // OpenAI's usage (reasoning inside completion_tokens, total = prompt + completion) is not charged twice.
    const openai = { prompt_tokens: 100, completion_tokens: 310, total_tokens: 410, completion_tokens_details: { reasoning_tokens: 300 } };
    answerWith('/chat/completions', completion('grok-3-mini', openai));
    const again = await openaiClient(gw, '/v1/xai', { apiKey: org.key })
      .chat.completions.create({ model: 'grok-3-mini', messages: [{ role: 'user', content: 'Think first' }] })
      .withResponse();
    const second = await recordOf(gw, again.response.headers.get('x-svc-request-id'), org.orgId);
    expect(second).toMatchObject({ input_tokens: 100, output_tokens: 310 });
    expect(second.cost).toBeCloseTo(record.cost, 12);
  });

  it('built-in aliases of the newest Claude models are charged their model\'s prices, not DEFAULT_MODEL_PRICE', async () => {
    const usage = { input_tokens: 1000, cache_creation_input_tokens: 2000, cache_read_input_tokens: 4000, output_tokens: 500 };
    answerWith('/messages', { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-opus-5-5', content: [{ type: 'text', text: 'hi' }], stop_reason: 'end_turn', stop_sequence: null, usage });
    const client = new Anthropic({ apiKey: org.key, baseURL: gw.url, defaultHeaders: { 'X-Provider-Key': PROVIDER_KEY }, maxRetries: 0 });
    const opus = await client.messages.create({ model: 'claude-opus-latest', max_tokens: 1000, messages: [{ role: 'user', content: 'Hello' }] }).withResponse();
    expect(gw.mock.requests.at(-1)?.model).toBe('claude-opus-5-5');
    const record = await recordOf(gw, opus.response.headers.get('x-svc-request-id'), org.orgId);
    expect(record).toMatchObject({ provider: 'anthropic', model: 'claude-opus-5-5', usage_source: 'provider', input_tokens: 7000, output_tokens: 500 });
    const expected = (1000 * CLAUDE_OPUS_5_5.input + 2000 * CLAUDE_OPUS_5_5.write5m + 4000 * CLAUDE_OPUS_5_5.read + 500 * CLAUDE_OPUS_5_5.output) / 1e6;
    expect(record.cost).toBeCloseTo(expected, 12);

    answerWith('/chat/completions', completion('claude-sonnet-5', { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 }));
    const sonnet = await openaiClient(gw, '/v1', { apiKey: org.key })
      .chat.completions.create({ model: 'claude-sonnet-latest', messages: [{ role: 'user', content: 'Hello' }] })
      .withResponse();
    const second = await recordOf(gw, sonnet.response.headers.get('x-svc-request-id'), org.orgId);
    expect(second).toMatchObject({ provider: 'anthropic', model: 'claude-sonnet-5', input_tokens: 1000, output_tokens: 500 });
    expect(second.cost).toBeCloseTo((1000 * CLAUDE_SONNET_5.input + 500 * CLAUDE_SONNET_5.output) / 1e6, 12);
  });
});
