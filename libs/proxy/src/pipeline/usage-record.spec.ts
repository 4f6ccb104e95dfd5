import { costOf, GovernanceDecision } from '@svc/governance';
import { extractUsage, type TokenUsage } from '../upstream/usage';
import { accessLine, chargeOf, FinishState, usageRecord } from './usage-record';
import type { ExchangeResult } from './upstream-exchange';
import { usage } from '../upstream/fixtures/usage.fixtures';

const exchanged = (result: Partial<ExchangeResult>): ExchangeResult => ({
  status: 200,
  usage: undefined,
  usageFinal: false,
  streamed: false,
  textChars: 0,
  upstreamLatencyMs: 1,
  aborted: false,
  bytesRelayed: 100,
  ...result,
});

const served = (tokens: TokenUsage): FinishState => ({
  status: 200,
  stream: false,
  agent: 'a',
  result: exchanged({ usage: tokens, usageFinal: true }),
});

/** Stage 2 estimated 120 input and 400 max output tokens. */
const decision = { estimate: { input_tokens: 120, output_tokens: 400, estimated_cost: 0 } } as unknown as GovernanceDecision;
const stream = (result: Partial<ExchangeResult>, status = 499): FinishState => ({
  status,
  stream: true,
  agent: 'a',
  decision,
  result: exchanged({ streamed: true, status: status === 499 ? 200 : status, aborted: status === 499, ...result }),
});

describe('chargeOf', () => {
  it('prices A cached input at the cache-read price and reasoning as output', () => {
    // gpt-4o: 2.5 input, 1.25 cached, 10 output per 1M; 1,000 prompt tokens of which 400 cached, 500 completion.
    const charge = chargeOf('openai', 'gpt-4o', served(usage({ inputTokens: 1000, outputTokens: 500, cachedInputTokens: 400, reasoningTokens: 200 })), {});
    expect(charge).toMatchObject({ inputTokens: 1000, outputTokens: 500, source: 'provider' });
    expect(charge.cost).toBeCloseTo((600 * 2.5 + 400 * 1.25 + 500 * 10) / 1e6, 15);
  });

  it('prices B cache reads below, and 5-minute and 1-hour cache writes above, the input price', () => {
    // claude-sonnet-4: 3 input, 0.3 read, 3.75 5-minute write, 6 1-hour write, 15 output per 1M.
    // B's input_tokens 100, cache_read 2,000, cache_creation 1,000 (of which 1 hour: 400), output 300.
    const tokens = usage({ inputTokens: 3100, outputTokens: 300, cachedInputTokens: 2000, cacheCreationInputTokens: 1000, cacheCreation1hInputTokens: 400 });
    const { cost } = chargeOf('anthropic', 'claude-sonnet-4-20250514', served(tokens), {});
    expect(cost).toBeCloseTo((100 * 3 + 2000 * 0.3 + 600 * 3.75 + 400 * 6 + 300 * 15) / 1e6, 15);
    expect(cost).toBeGreaterThan(costOf('claude-sonnet-4-20250514', { input_tokens: 1100, cached_input_tokens: 2000, output_tokens: 300 }));
  });

  it('prices a request whose prompt is above the model\'s long-context threshold at the tier, cache reads and writes counted in', () => {
    // claude-sonnet-4-5 above 200K prompt tokens: 6 input, 0.6 read, 7.5 5-minute write, 22.5 output per 1M.
    // B's input_tokens 40,000, cache_read 150,000, cache_creation 10,001: a 200,001-token prompt.
    const above = usage({ inputTokens: 200_001, outputTokens: 2000, cachedInputTokens: 150_000, cacheCreationInputTokens: 10_001 });
    expect(chargeOf('anthropic', 'claude-sonnet-4-5', served(above), {}).cost).toBeCloseTo((40_000 * 6 + 150_000 * 0.6 + 10_001 * 7.5 + 2000 * 22.5) / 1e6, 15);
    const at = usage({ inputTokens: 200_000, outputTokens: 2000, cachedInputTokens: 150_000, cacheCreationInputTokens: 10_000 });
    expect(chargeOf('anthropic', 'claude-sonnet-4-5', served(at), {}).cost).toBeCloseTo((40_000 * 3 + 150_000 * 0.3 + 10_000 * 3.75 + 2000 * 15) / 1e6, 15);
    // C (and A): the prompt count includes the cached tokens. gemini-2.5-pro above 200K: 2.5 input, 0.25 cached, 15 output.
    const gemini = usage({ inputTokens: 250_000, outputTokens: 500, cachedInputTokens: 100_000 });
    expect(chargeOf('gemini', 'gemini-2.5-pro', served(gemini), {}).cost).toBeCloseTo((150_000 * 2.5 + 100_000 * 0.25 + 500 * 15) / 1e6, 15);
    // A stream left before its usage, charged the prompt stage 2 counted: above the threshold too.
    const counted = { estimate: { input_tokens: 230_000, output_tokens: 400, estimated_cost: 0 } } as unknown as GovernanceDecision;
    const left: FinishState = { ...stream({ textChars: 400 }), decision: counted };
    expect(chargeOf('gemini', 'gemini-2.5-pro', left, {})).toMatchObject({ inputTokens: 230_000, outputTokens: 100, source: 'estimate' });
    expect(chargeOf('gemini', 'gemini-2.5-pro', left, {}).cost).toBeCloseTo((230_000 * 2.5 + 100 * 15) / 1e6, 15);
  });

  it('costs nothing when nothing was sent upstream, nor for an error answer', () => {
    expect(chargeOf('openai', 'gpt-4o', { status: 403, stream: false, agent: 'a' }, {})).toEqual({ cost: 0, inputTokens: 0, outputTokens: 0, source: 'none' });
    const error: FinishState = { status: 500, stream: false, agent: 'a', decision, result: exchanged({ status: 500 }) };
    expect(chargeOf('openai', 'gpt-4o', error, {})).toMatchObject({ cost: 0, source: 'none' });
  });

  it('charges a request handed to the provider and never answered its counted prompt, and one that never reached it nothing', () => {
    // The client left (499), a deadline passed (504) or the connection broke (502) after the request was sent.
    for (const [status, stream] of [[499, false], [499, true], [504, false], [502, true]] as const) {
      const lost: FinishState = { status, stream, agent: 'a', decision, dispatched: true };
      const charge = chargeOf('openai', 'gpt-4o', lost, {});
      expect([status, charge]).toEqual([status, { cost: (120 * 2.5) / 1e6, inputTokens: 120, outputTokens: 0, source: 'estimate' }]);
    }
    // At the default price for a model the table does not know, as every estimate.
    expect(chargeOf('openai', 'gpt-5.6', { status: 499, stream: false, agent: 'a', decision, dispatched: true }, {})).toMatchObject({ source: 'estimate', defaultPriced: true });
    // The same failures before the request went out (governance, connecting): nothing.
    for (const status of [499, 502, 504]) {
      expect(chargeOf('openai', 'gpt-4o', { status, stream: false, agent: 'a', decision }, {})).toEqual({ cost: 0, inputTokens: 0, outputTokens: 0, source: 'none' });
    }
    // A D catch-all call stage 2 found no prompt in: nothing to charge.
    const nothing = { estimate: { input_tokens: 0, output_tokens: 0, estimated_cost: 0 } } as unknown as GovernanceDecision;
    expect(chargeOf('mistral', 'mistral', { status: 499, stream: false, agent: 'a', decision: nothing, dispatched: true }, {})).toMatchObject({ cost: 0, source: 'none' });
  });

  it('charges an idempotent replay nothing and says it was one (`replay`, not `none`: it was served)', () => {
    expect(chargeOf('openai', 'gpt-4o', { status: 200, stream: false, agent: 'a', replayed: true }, {})).toEqual({ cost: 0, inputTokens: 0, outputTokens: 0, source: 'replay' });
  });

  it('charges a stream left without usage its counted input and the text it relayed, 4 characters a token', () => {
    const charge = chargeOf('openai', 'gpt-4o', stream({ textChars: 41, bytesRelayed: 2_000 }), {});
    expect(charge).toMatchObject({ inputTokens: 120, outputTokens: 11, source: 'estimate' });
    expect(charge.cost).toBeCloseTo((120 * 2.5 + 11 * 10) / 1e6, 15);
  });

  it('charges a stream broken upstream (502) like one its client left, at most the max output tokens', () => {
    const charge = chargeOf('openai', 'gpt-4o', stream({ textChars: 10_000 }, 502), {});
    expect(charge).toMatchObject({ inputTokens: 120, outputTokens: 400, source: 'estimate' });
  });

  it('takes the running counts of a B or C stream that never completed, and the relayed text when it is more', () => {
    // B's message_start: the provider's input (with its cache reads) and 1 output token.
    const started = usage({ inputTokens: 150, outputTokens: 1, cachedInputTokens: 100 });
    const charge = chargeOf('anthropic', 'claude-sonnet-4-20250514', stream({ usage: started, textChars: 80 }), {});
    expect(charge).toMatchObject({ inputTokens: 150, outputTokens: 20, source: 'estimate' });
    expect(charge.cost).toBeCloseTo((50 * 3 + 100 * 0.3 + 20 * 15) / 1e6, 15);
    const delta = usage({ inputTokens: 150, outputTokens: 60 });
    expect(chargeOf('anthropic', 'claude-sonnet-4-20250514', stream({ usage: delta, textChars: 80 }), {})).toMatchObject({ outputTokens: 60, source: 'estimate' });
  });

  it('bills thinking as output in every format: A and B include it in their output count, C adds thoughtsTokenCount', () => {
    // 10 prompt tokens, 50 answer tokens and 250 thinking tokens, as each provider reports them.
    const a = extractUsage('openai', { usage: { prompt_tokens: 10, completion_tokens: 300, total_tokens: 310, completion_tokens_details: { reasoning_tokens: 250 } } });
    const b = extractUsage('anthropic', { usage: { input_tokens: 10, output_tokens: 300 } });
    const c = extractUsage('gemini', { usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 50, thoughtsTokenCount: 250, totalTokenCount: 310 } });
    for (const [provider, model, tokens] of [['openai', 'o4-mini', a], ['anthropic', 'claude-sonnet-4-5', b], ['gemini', 'gemini-2.5-flash', c]] as const) {
      const charge = chargeOf(provider, model, served(tokens as TokenUsage), {});
      expect([provider, charge.outputTokens, charge.source]).toEqual([provider, 300, 'provider']);
      expect(charge.cost).toBeCloseTo(costOf(model, { input_tokens: 10, output_tokens: 300 }), 15);
    }
  });

  it('prices embeddings usage (prompt tokens, no completion) at the input price', () => {
    const tokens = extractUsage('openai', { object: 'list', usage: { prompt_tokens: 8000, total_tokens: 8000 } }) as TokenUsage;
    const charge = chargeOf('openai', 'text-embedding-3-small', served(tokens), {});
    expect(charge).toMatchObject({ inputTokens: 8000, outputTokens: 0, source: 'provider' });
    expect(charge.cost).toBeCloseTo((8000 * 0.02) / 1e6, 15);
  });

  it('prices A audio tokens at the audio prices, the rest of the prompt and answer as text', () => {
    // gpt-4o-audio-preview: 2.5 text / 40 audio in, 10 text / 80 audio out; 1,100 prompt tokens (1,000 audio), 550 completion (500 audio).
    const tokens = usage({ inputTokens: 1100, outputTokens: 550, audioInputTokens: 1000, audioOutputTokens: 500 });
    const { cost } = chargeOf('openai', 'gpt-4o-audio-preview', served(tokens), {});
    expect(cost).toBeCloseTo((100 * 2.5 + 1000 * 40 + 50 * 10 + 500 * 80) / 1e6, 15);
  });

  it('adds B web searches at $10 per 1,000 to the tokens; web fetches cost their tokens only', () => {
    const tokens = usage({ inputTokens: 2000, outputTokens: 300, serverToolUses: { web_search_requests: 3, web_fetch_requests: 2 } });
    const { cost } = chargeOf('anthropic', 'claude-sonnet-4-5-20250929', served(tokens), {});
    expect(cost).toBeCloseTo((2000 * 3 + 300 * 15) / 1e6 + 0.03, 15);
  });

  it('charges nothing for a D catch-all answer without usage to a call stage 2 found nothing to price in', () => {
    const nothing = { estimate: { input_tokens: 0, output_tokens: 0, estimated_cost: 0 } } as unknown as GovernanceDecision;
    const list: FinishState = { status: 200, stream: false, agent: 'a', decision: nothing, result: exchanged({ bytesRelayed: 40_000 }) };
    expect(chargeOf('mistral', 'mistral', list, {})).toEqual({ cost: 0, inputTokens: 0, outputTokens: 0, source: 'none' });
    // A call with a prompt and an answer without usage is still charged its estimate.
    const prompted: FinishState = { ...list, decision, result: exchanged({ bytesRelayed: 400 }) };
    expect(chargeOf('mistral', 'mistral-small-latest', prompted, {})).toMatchObject({ inputTokens: 120, outputTokens: 100, source: 'estimate' });
    // A usage object in the answer is the provider's account, whatever the call.
    const usageAnswered: FinishState = { ...list, result: exchanged({ usage: usage({ inputTokens: 9, outputTokens: 2 }), usageFinal: true }) };
    expect(chargeOf('mistral', 'mistral-small-latest', usageAnswered, {})).toMatchObject({ inputTokens: 9, outputTokens: 2, source: 'provider' });
  });

  it('marks a charge at the default price: a model the table does not know, a newer version of one it does', () => {
    const tokens = usage({ inputTokens: 1000, outputTokens: 100 });
    const unknown = chargeOf('anthropic', 'claude-opus-4-99', served(tokens), {});
    expect(unknown).toMatchObject({ source: 'provider', defaultPriced: true });
    expect(unknown.cost).toBeCloseTo((1000 * 3 + 100 * 15) / 1e6, 15);
    // DEFAULT_MODEL_PRICE of the configuration, and a charged estimate too.
    expect(chargeOf('openai', 'gpt-5.6', served(tokens), { defaultPrice: { input: 1, output: 2 } })).toMatchObject({ cost: (1000 + 200) / 1e6, defaultPriced: true });
    expect(chargeOf('openai', 'gpt-5.6', stream({ textChars: 40 }), {})).toMatchObject({ source: 'estimate', defaultPriced: true });
    // A listed model, a dated snapshot of one, a route priced whole: not marked.
    for (const [provider, model] of [['anthropic', 'claude-opus-4-7'], ['openai', 'gpt-4o-2024-08-06'], ['ollama', 'llama3.2']]) {
      expect([model, chargeOf(provider, model, served(tokens), {}).defaultPriced]).toEqual([model, undefined]);
    }
    // Nothing charged, nothing marked.
    expect(chargeOf('openai', 'gpt-5.6', { status: 403, stream: false, agent: 'a' }, {})).toEqual({ cost: 0, inputTokens: 0, outputTokens: 0, source: 'none' });
    expect(chargeOf('openai', 'gpt-5.6', { ...served(tokens), result: exchanged({ status: 500 }) }, {})).toEqual({ cost: 0, inputTokens: 0, outputTokens: 0, source: 'none' });
  });

  it('keeps the provider usage of a stream whose last usage arrived before the client left', () => {
    const final = usage({ inputTokens: 11, outputTokens: 7 });
    expect(chargeOf('openai', 'gpt-4o', stream({ usage: final, usageFinal: true, textChars: 400 }), {})).toMatchObject({ inputTokens: 11, outputTokens: 7, source: 'provider' });
  });
});

describe('usageRecord and accessLine', () => {
  const principal = { orgId: 'org_1', keyId: 'key_1', teamId: null } as unknown as FinishState['principal'];

  it('show the charge: its tokens, its cost and where they come from (the access line with roundUsd)', () => {
    const state = { ...stream({ textChars: 41 }), principal };
    const charge = { cost: 0.00014519999999999998, inputTokens: 120, outputTokens: 11, source: 'estimate' as const };
    const record = usageRecord({ requestId: 'gw_1', provider: 'openai', model: 'gpt-4o', endpoint: '/v1/chat/completions', state, charge, latencyMs: 5 });
    expect(record).toMatchObject({ input_tokens: 120, output_tokens: 11, cost: 0.00014519999999999998, usage_source: 'estimate', status_code: 499 });
    const line = accessLine({ id: 'gw_1', method: 'POST', url: '/v1/chat/completions' }, { provider: 'openai', model: 'gpt-4o', state, charge, latencyMs: 5 });
    expect(line).toMatchObject({ input_tokens: 120, output_tokens: 11, cost: 0.0001452, usage_source: 'estimate', default_price: false });
    const unpriced = accessLine({ id: 'gw_2', method: 'POST', url: '/v1/chat/completions' }, { provider: 'openai', model: 'gpt-5.6', state, charge: { ...charge, defaultPriced: true }, latencyMs: 5 });
    expect(unpriced).toMatchObject({ model: 'gpt-5.6', default_price: true });
  });
});
