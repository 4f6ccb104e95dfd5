import { roundUsd } from '@svc/domain';
import { GatewayHarness, metricSum, postJson, PROVIDER_KEY, recordOf, startGateway } from './harness';

/** USD per 1M tokens (input, output) for models the price table does not know, set in the harness env. */
const DEFAULT_PRICE = { input: 2, output: 8 };
const UNPRICED = 'svc_gateway_unpriced_model_requests_total';

/**
 * A model the price table does not list is charged at DEFAULT_MODEL_PRICE, estimate and record,
 * and counted in `svc_gateway_unpriced_model_requests_total`, even when its name begins with a
 * listed model's (`claude-opus-4-99` is not Opus 4 at $15 / $75). Snapshots of a listed model keep
 * its price. The provider's answers are canned by the mock, with their usage.
 */
describe('gateway pricing of models the price table does not list', () => {
  let gw: GatewayHarness;

  beforeAll(async () => {
    gw = await startGateway({ env: { DEFAULT_MODEL_PRICE: `${DEFAULT_PRICE.input},${DEFAULT_PRICE.output}` } });
  });
  afterAll(() => gw.stop());
  beforeEach(() => gw.mock.reset());

  const auth = () => ({ 'X-SVC-API-Key': gw.key, 'X-Provider-Key': PROVIDER_KEY });

  /** The mock answers the next matching request with `body` (a canned provider answer, status 200). */
  const answerWith = (path: string, body: unknown) => gw.mock.setBehavior({ match: { path }, fail: { status: 200, body } });

  const message = (model: string, input: number, output: number) => ({
    id: 'msg_unpriced',
    type: 'message',
    role: 'assistant',
    model,
    content: [{ type: 'text', text: 'Done.' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: input, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: output },
  });
  const completion = (model: string, prompt: number, completionTokens: number) => ({
    id: 'chatcmpl-unpriced',
    object: 'chat.completion',
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: 'Done.' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: prompt, completion_tokens: completionTokens, total_tokens: prompt + completionTokens },
  });

  async function send(path: string, model: string, answer: unknown) {
    answerWith(path, answer);
    const res = await postJson(`${gw.url}${path}`, { model, max_tokens: 500, messages: [{ role: 'user', content: 'Plan the release.' }] }, auth());
    expect(res.status).toBe(200);
    return { res, record: await recordOf(gw, res.headers.get('x-svc-request-id')) };
  }

  it('B: an unlisted newer Opus is estimated and recorded at DEFAULT_MODEL_PRICE, not Opus 4\'s $15 / $75, and counted', async () => {
    const before = await metricSum(gw, UNPRICED, { provider: 'anthropic', model: 'other' });
    const { res, record } = await send('/v1/messages', 'claude-opus-4-99', message('claude-opus-4-99', 10_000, 2_000));
    expect(record).toMatchObject({ provider: 'anthropic', model: 'claude-opus-4-99', usage_source: 'provider', input_tokens: 10_000, output_tokens: 2_000 });
    expect(record.cost).toBeCloseTo((10_000 * DEFAULT_PRICE.input + 2_000 * DEFAULT_PRICE.output) / 1e6, 12);
    const estimate = (record.replay.estimated_input_tokens * DEFAULT_PRICE.input + 500 * DEFAULT_PRICE.output) / 1e6;
    expect(record.estimated_cost).toBeCloseTo(estimate, 12);
    expect(Number(res.headers.get('x-svc-cost'))).toBeCloseTo(roundUsd(estimate), 9);
    expect(await metricSum(gw, UNPRICED, { provider: 'anthropic', model: 'other' })).toBe(before + 1);
  });

  it('A: an unlisted GPT version is at the default price and counted; the listed and dated models keep their prices uncounted', async () => {
    const before = await metricSum(gw, UNPRICED);
    const unlisted = await send('/v1/chat/completions', 'gpt-5.6', completion('gpt-5.6', 4_000, 1_000));
    expect(unlisted.record.cost).toBeCloseTo((4_000 * DEFAULT_PRICE.input + 1_000 * DEFAULT_PRICE.output) / 1e6, 12);
    expect(await metricSum(gw, UNPRICED, { provider: 'openai', model: 'other' })).toBeGreaterThanOrEqual(1);
    expect(await metricSum(gw, UNPRICED)).toBe(before + 1);

    // Listed models and snapshots of them: their own prices, no count.
    const opus = await send('/v1/messages', 'claude-opus-4-7', message('claude-opus-4-7', 10_000, 2_000));
    expect(opus.record.cost).toBeCloseTo((10_000 * 5 + 2_000 * 25) / 1e6, 12);
    const dated = await send('/v1/chat/completions', 'gpt-5.2-2025-12-11', completion('gpt-5.2-2025-12-11', 4_000, 1_000));
    expect(dated.record.cost).toBeCloseTo((4_000 * 1.75 + 1_000 * 14) / 1e6, 12);
    expect(await metricSum(gw, UNPRICED)).toBe(before + 1);
  });
});
