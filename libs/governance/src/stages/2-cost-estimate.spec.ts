import { contextFor, chatBody } from '../chain/governance.fixtures';
import { costOf } from '../cost/price-lookup';
import { budgetRefusal, estimateStage } from './2-cost-estimate';

describe('stage 2, cost estimate', () => {
  it('estimates input with the tokenizer and output from max_tokens at the price table', () => {
    const ctx = contextFor({ input: { model: 'gpt-4o', body: chatBody('Hello there, how are you?', { model: 'gpt-4o', max_tokens: 1000 }) } });
    expect(estimateStage(ctx).outcome).toBe('ALLOW');
    expect(ctx.estimate?.output_tokens).toBe(1000);
    expect(ctx.estimate?.input_tokens).toBeGreaterThan(5);
    expect(ctx.estimate?.estimated_cost).toBeCloseTo(costOf('gpt-4o', { input_tokens: ctx.estimate?.input_tokens, output_tokens: 1000 }), 12);
  });

  it('counts max output tokens for each answer asked for (n, best_of), and says so when it refuses', () => {
    const body = (extra: Record<string, unknown>) => chatBody('Hello there', { model: 'gpt-4o', max_tokens: 1000, ...extra });
    const one = contextFor({ input: { model: 'gpt-4o', body: body({}) } });
    estimateStage(one);
    expect(one.estimate).not.toHaveProperty('answers');
    const four = contextFor({ input: { model: 'gpt-4o', body: body({ n: 4 }) } });
    estimateStage(four);
    expect(four.estimate).toMatchObject({ output_tokens: 4000, answers: 4, input_tokens: one.estimate?.input_tokens });
    expect(four.estimate?.estimated_cost).toBeCloseTo(costOf('gpt-4o', { input_tokens: one.estimate?.input_tokens, output_tokens: 4000 }), 12);
    const bestOf = contextFor({ input: { model: 'gpt-4o', body: body({ n: 2, best_of: 3 }) } });
    estimateStage(bestOf);
    expect(bestOf.estimate).toMatchObject({ output_tokens: 3000, answers: 3 });
    // Not a count (the provider refuses it): one answer.
    for (const n of ['4', 0, -2, null]) {
      const odd = contextFor({ input: { model: 'gpt-4o', body: body({ n }) } });
      estimateStage(odd);
      expect(odd.estimate).toMatchObject({ output_tokens: 1000 });
    }
    // Under a cap one answer fits and four do not.
    const cap = (one.estimate?.estimated_cost ?? 0) * 2;
    const capped = contextFor({ profile: { policy: { max_cost_per_request: cap } }, input: { model: 'gpt-4o', body: body({ n: 4 }) } });
    const refused = estimateStage(capped);
    if (refused.outcome !== 'BLOCK') throw new Error('expected BLOCK');
    expect(refused.error.body.message).toContain('+ 4000 max output tokens: 4 answers of up to 1000 each)');
    expect(estimateStage(contextFor({ profile: { policy: { max_cost_per_request: cap } }, input: { model: 'gpt-4o', body: body({}) } })).outcome).toBe('ALLOW');
  });

  it('assumes 4096 output tokens without max_tokens', () => {
    const ctx = contextFor({ input: { body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] } } });
    estimateStage(ctx);
    expect(ctx.estimate?.output_tokens).toBe(4096);
  });

  it('estimates a D catch-all call without a prompt at 0, so no cap refuses a GET of the model list', () => {
    const input = { endpoint: 'passthrough' as const, provider: 'mistral', model: 'mistral', body: undefined };
    const ctx = contextFor({ profile: { policy: { max_cost_per_request: 0.000001 } }, input });
    expect(estimateStage(ctx).outcome).toBe('ALLOW');
    expect(ctx.estimate).toEqual({ input_tokens: 0, output_tokens: 0, estimated_cost: 0 });
    // A chat route's body-less request (not possible on the chat routes themselves) would be 4,096 output tokens.
    const chat = contextFor({ profile: { policy: { max_cost_per_request: 0.000001 } }, input: { ...input, endpoint: 'chat' as const } });
    expect(estimateStage(chat).outcome).toBe('BLOCK');
    const prompt = contextFor({ input: { ...input, body: chatBody('hello', { model: 'mistral-small-latest', max_tokens: 20 }) } });
    estimateStage(prompt);
    expect(prompt.estimate).toMatchObject({ output_tokens: 20 });
  });

  it('estimates a D catch-all body without a prompt from the strings the PII stage scans, and refuses it above the cap', () => {
    const documents = Array.from({ length: 200 }, (_, i) => `Invoice ${i} of the quarterly report, paid in full.`);
    const input = { endpoint: 'passthrough' as const, provider: 'mistral', model: 'mistral-small-latest', body: { model: 'mistral-small-latest', query: 'unpaid?', documents } };
    const ctx = contextFor({ profile: { policy: { max_cost_per_request: 0.0001 } }, input });
    const result = estimateStage(ctx);
    expect(ctx.estimate).toMatchObject({ output_tokens: 0, body_strings: true });
    expect(ctx.estimate?.input_tokens).toBeGreaterThan(2000);
    expect(ctx.estimate?.estimated_cost).toBe(costOf('mistral/mistral-small-latest', { input_tokens: ctx.estimate?.input_tokens ?? 0 }));
    // The texts were extracted once: the PII stage reads the same array.
    expect(ctx.texts()).toBe(ctx.texts());
    if (result.outcome !== 'BLOCK') throw new Error('expected BLOCK');
    expect(result.error.body).toMatchObject({ code: 'cost_limit', gateway_error_code: 'GW_COST_001' });
    expect(result.error.body.message).toMatch(/ \(\d+ input tokens in the strings of the body \+ 0 max output tokens\) exceeds/);
  });

  it('refuses an estimate above the per-request cap with cost_limit GW_COST_001', () => {
    const ctx = contextFor({ profile: { policy: { max_cost_per_request: 0.01 } }, input: { model: 'gpt-4o', body: chatBody('hi', { max_tokens: 10_000 }) } });
    const result = estimateStage(ctx);
    if (result.outcome !== 'BLOCK') throw new Error('expected BLOCK');
    expect(result.error.status).toBe(403);
    expect(result.error.body).toMatchObject({ type: 'permission_error', code: 'cost_limit', gateway_error_code: 'GW_COST_001' });
    expect(result.error.body.message).toContain('$0.01');
  });

  it('prices a B body with a cache_control marker at the cache-write price and says so when refusing', () => {
    const body = {
      model: 'claude-sonnet-4-5',
      max_tokens: 10,
      system: [{ type: 'text', text: 'Long instructions. '.repeat(2000), cache_control: { type: 'ephemeral', ttl: '1h' } }],
      messages: [{ role: 'user', content: 'hi' }],
    };
    const input = { provider: 'anthropic', format: 'anthropic' as const, model: 'claude-sonnet-4-5', body };
    const ctx = contextFor({ profile: { policy: { max_cost_per_request: 0.04 } }, input });
    const result = estimateStage(ctx);
    // 6 per 1M written for an hour (3 input): some 9,500 tokens cost $0.029 as input, $0.057 written.
    expect(ctx.estimate?.cache_write).toBe('1h');
    expect(ctx.estimate?.estimated_cost).toBeCloseTo(((ctx.estimate?.input_tokens ?? 0) * 6 + 10 * 15) / 1e6, 15);
    if (result.outcome !== 'BLOCK') throw new Error('expected BLOCK');
    expect(result.error.body.message).toMatch(/ \(\d+ input tokens priced as 1-hour cache writes \+ 10 max output tokens\)/);
    const unmarked = contextFor({ profile: { policy: { max_cost_per_request: 0.04 } }, input: { ...input, body: { ...body, system: 'Long instructions. '.repeat(2000) } } });
    expect(estimateStage(unmarked).outcome).toBe('ALLOW');
  });

  it('prices a prompt above the model\'s long-context threshold at the tier and says so when refusing', () => {
    // Gemini's count is characters / 4: 1.5 tokens per 'token ', so 140,000 of them are some 210,000 tokens.
    const body = { model: 'gemini-2.5-pro', max_tokens: 10, messages: [{ role: 'user', content: 'token '.repeat(140_000) }] };
    const input = { provider: 'gemini', model: 'gemini-2.5-pro', body };
    const ctx = contextFor({ profile: { policy: { max_cost_per_request: 0.4 } }, input });
    const result = estimateStage(ctx);
    const tokens = ctx.estimate?.input_tokens ?? 0;
    expect(tokens).toBeGreaterThan(200_000);
    // gemini-2.5-pro above 200K: 2.50 input, 15 output per 1M (1.25 and 10 below): $0.53 at the tier, $0.26 at the base prices.
    expect(ctx.estimate).toMatchObject({ long_context: 200_000, output_tokens: 10 });
    expect(ctx.estimate?.estimated_cost).toBeCloseTo((tokens * 2.5 + 10 * 15) / 1e6, 15);
    if (result.outcome !== 'BLOCK') throw new Error('expected BLOCK');
    expect(result.error.body.message).toMatch(/ \(\d+ input \+ 10 max output tokens, all at the model's long-context prices for prompts above 200000 tokens\) exceeds/);
    // Some 199,500 tokens: the base prices, under the cap.
    const below = contextFor({ profile: { policy: { max_cost_per_request: 0.4 } }, input: { ...input, body: { ...body, messages: [{ role: 'user', content: 'token '.repeat(133_000) }] } } });
    expect(estimateStage(below).outcome).toBe('ALLOW');
    expect(below.estimate?.input_tokens).toBeLessThanOrEqual(200_000);
    expect(below.estimate?.long_context).toBeUndefined();
    expect(below.estimate?.estimated_cost).toBeCloseTo(((below.estimate?.input_tokens ?? 0) * 1.25 + 10 * 10) / 1e6, 15);
  });

  it.each([
    ['daily_budget', 'daily_budget', 'GW_COST_002'],
    ['auto_stop', 'daily_budget', 'GW_COST_002'],
    ['monthly_budget', 'monthly_budget', 'GW_COST_003'],
  ] as const)('renders %s as 403 %s with a budget.exceeded event', (kind, code, gw) => {
    const ctx = contextFor({ profile: { autoStopBudgets: [{ id: 'budget_1', name: 'Team cap', limit: 5 }] } });
    estimateStage(ctx);
    const result = budgetRefusal(ctx, kind, { daySpent: 99.5, dayReserved: 0.25, monthSpent: 1999, monthReserved: 0 });
    if (result.outcome !== 'BLOCK') throw new Error('expected BLOCK');
    expect(result.error.status).toBe(403);
    expect(result.error.body).toMatchObject({ type: 'permission_error', code, gateway_error_code: gw });
    expect(result.error.body.remediation).toBeTruthy();
    expect(result.events?.[0]).toMatchObject({ type: 'budget.exceeded', data: { blocked_by: code, daily_spent: 99.5, model: 'gpt-4o-mini' } });
    if (kind === 'auto_stop') expect(result.error.body.message).toContain('"Team cap"');
    if (kind === 'daily_budget') expect(result.error.body.message).toContain('$0.25 in flight');
  });
});
