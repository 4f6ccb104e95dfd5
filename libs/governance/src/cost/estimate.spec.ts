import { estimateCost, estimatePassthroughCost } from './estimate';
import { costOf } from './price-lookup';
import { warmUpTokenizers } from './tokenizer';
import { extractBodyTexts } from '../scanners/extract-body';
import { countInput, countTexts, isEmbeddingsRequest, isTokenPricedBody, maxOutputTokens } from './tokens';

beforeAll(() => warmUpTokenizers());

const SONNET = 'claude-sonnet-4-20250514';
const ephemeral = { type: 'ephemeral' };
const hour = { type: 'ephemeral', ttl: '1h' };
const prompt = 'You review pull requests of a large TypeScript monorepo. '.repeat(40);

/** A format-B body whose system block, last user block or first tool may carry a marker. */
function messagesBody(marks: { system?: object; content?: object; tool?: object; top?: object } = {}): Record<string, unknown> {
  return {
    model: SONNET,
    max_tokens: 500,
    ...(marks.top ? { cache_control: marks.top } : {}),
    system: [{ type: 'text', text: prompt, ...(marks.system ? { cache_control: marks.system } : {}) }],
    tools: [{ name: 'lookup', description: 'Looks a file up', input_schema: { type: 'object' }, ...(marks.tool ? { cache_control: marks.tool } : {}) }],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Review this diff.', ...(marks.content ? { cache_control: marks.content } : {}) }] }],
  };
}

describe('estimateCost with prompt-cache markers', () => {
  it('prices the input at the input price without a marker', () => {
    const estimate = estimateCost(SONNET, messagesBody());
    expect(estimate.cache_write).toBeUndefined();
    expect(estimate.estimated_cost).toBe(costOf(SONNET, { input_tokens: estimate.input_tokens, output_tokens: 500 }));
  });

  it.each([
    ['a system block', { system: ephemeral }],
    ['a content block', { content: ephemeral }],
    ['a tool', { tool: ephemeral }],
    ['the body (automatic caching)', { top: ephemeral }],
    ['a block with ttl "5m"', { content: { type: 'ephemeral', ttl: '5m' } }],
  ])('prices the input at the 5-minute write price with a marker on %s', (_where, marks) => {
    const plain = estimateCost(SONNET, messagesBody());
    const estimate = estimateCost(SONNET, messagesBody(marks));
    expect(estimate.cache_write).toBe('5m');
    // claude-sonnet-4: 3.75 per 1M written for 5 minutes (3 input), 15 output.
    expect(estimate.estimated_cost).toBeCloseTo((estimate.input_tokens * 3.75 + 500 * 15) / 1e6, 15);
    expect(estimate.estimated_cost).toBeGreaterThan(plain.estimated_cost);
  });

  it('prices the input at the 1-hour write price when any marker asks for ttl "1h"', () => {
    const estimate = estimateCost(SONNET, messagesBody({ system: hour, content: ephemeral }));
    expect(estimate.cache_write).toBe('1h');
    expect(estimate.estimated_cost).toBeCloseTo((estimate.input_tokens * 6 + 500 * 15) / 1e6, 15);
    expect(estimateCost(SONNET, messagesBody({ tool: ephemeral, content: hour })).cache_write).toBe('1h');
  });

  it('finds a marker inside a tool_result, and on a format-A content part', () => {
    const toolResult = {
      model: SONNET,
      max_tokens: 10,
      messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'ok', cache_control: ephemeral }] }] }],
    };
    expect(countInput(SONNET, toolResult).cacheWrite).toBe('5m');
    const formatA = { model: SONNET, messages: [{ role: 'system', content: [{ type: 'text', text: prompt, cache_control: hour }] }] };
    expect(countInput(SONNET, formatA).cacheWrite).toBe('1h');
    expect(countInput(SONNET, messagesBody()).cacheWrite).toBe('none');
  });

  it('keeps the input price for a model without cache-write prices, or cheaper ones', () => {
    const body = { ...messagesBody({ system: hour }), model: 'gpt-4o' };
    const estimate = estimateCost('gpt-4o', body);
    expect(estimate.cache_write).toBeUndefined();
    expect(estimate.estimated_cost).toBe(costOf('gpt-4o', { input_tokens: estimate.input_tokens, output_tokens: 500 }));
    const table = { 'claude-sonnet-4': { input: 3, output: 15, cache_write: 2 } };
    const cheap = estimateCost(SONNET, messagesBody({ content: ephemeral }), { table });
    expect(cheap.cache_write).toBeUndefined();
    expect(cheap.estimated_cost).toBe(costOf(SONNET, { input_tokens: cheap.input_tokens, output_tokens: 500 }, { table }));
  });
});

describe('estimateCost with a long-context tier', () => {
  const body = { model: 'mine', max_tokens: 100, messages: [{ role: 'user', content: prompt }] };
  /** A model whose tier starts above `above` input tokens: 1 / 2 per 1M below, 10 / 20 above, cache writes 1.25x. */
  const tableAbove = (above: number) => ({
    mine: { input: 1, output: 2, cache_write: 1.25, long_context: { above_input_tokens: above, price: { input: 10, output: 20, cache_write: 12.5 } } },
  });

  it('prices counted input at, and just below, the threshold at the base prices, and one token above it at the tier for input and output', () => {
    const counted = countInput('mine', body).tokens;
    expect(counted).toBeGreaterThan(100);
    for (const above of [counted, counted + 1]) {
      const estimate = estimateCost('mine', body, { table: tableAbove(above) });
      expect(estimate).toEqual({ input_tokens: counted, output_tokens: 100, estimated_cost: (counted * 1 + 100 * 2) / 1e6 });
    }
    const long = estimateCost('mine', body, { table: tableAbove(counted - 1) });
    expect(long).toEqual({ input_tokens: counted, output_tokens: 100, estimated_cost: (counted * 10 + 100 * 20) / 1e6, long_context: counted - 1 });
  });

  it('prices cache writes at the tier\'s write price above the threshold', () => {
    const marked = { ...body, system: [{ type: 'text', text: 'Rules.', cache_control: ephemeral }] };
    const counted = countInput('mine', marked).tokens;
    const estimate = estimateCost('mine', marked, { table: tableAbove(counted - 1) });
    expect(estimate).toMatchObject({ cache_write: '5m', long_context: counted - 1 });
    expect(estimate.estimated_cost).toBeCloseTo((counted * 12.5 + 100 * 20) / 1e6, 18);
  });

  it('estimates a Claude Sonnet 4.5 prompt above 200K tokens at $6 / $22.50 per 1M, a 20K one at $3 / $15', () => {
    const long = { model: 'claude-sonnet-4-5', max_tokens: 1000, messages: [{ role: 'user', content: 'token '.repeat(220_000) }] };
    const estimate = estimateCost('anthropic/claude-sonnet-4-5', long);
    expect(estimate.input_tokens).toBeGreaterThan(200_000);
    expect(estimate).toMatchObject({ output_tokens: 1000, long_context: 200_000 });
    expect(estimate.estimated_cost).toBeCloseTo((estimate.input_tokens * 6 + 1000 * 22.5) / 1e6, 15);
    const short = estimateCost('anthropic/claude-sonnet-4-5', { ...long, messages: [{ role: 'user', content: 'token '.repeat(20_000) }] });
    expect(short.long_context).toBeUndefined();
    expect(short.estimated_cost).toBeCloseTo((short.input_tokens * 3 + 1000 * 15) / 1e6, 15);
  });
});

describe('estimatePassthroughCost (the D catch-all)', () => {
  const walk = (body: unknown) => () => extractBodyTexts(body);

  it.each([
    ['a GET (no body)', undefined],
    ['a body that is not JSON (the proxy passes undefined)', undefined],
    ['a JSON number', 42],
    ['JSON null', null],
    ['an empty array', []],
  ])('estimates %s at nothing, not at 4,096 output tokens', (_what, body) => {
    expect(isTokenPricedBody(body)).toBe(false);
    expect(estimatePassthroughCost('mistral/mistral', body, walk(body))).toEqual({ input_tokens: 0, output_tokens: 0, estimated_cost: 0 });
    // What a plain estimate would have reserved for it.
    expect(estimateCost('mistral/mistral', body).output_tokens).toBe(4096);
  });

  const documents = Array.from({ length: 20 }, (_, i) => `Invoice ${i} of the quarterly report for the northern region, paid in full.`);
  it.each([
    ['an array (a batch of inputs)', [{ custom_id: 'a', text: 'Summarize the quarterly report.' }, { custom_id: 'b', text: documents[0] }]],
    ['a rerank', { model: 'mistral-small-latest', query: 'Which invoice is unpaid?', documents }],
    ['a batch with nested requests', { requests: [{ custom_id: 'r1', body: { model: 'mistral-small-latest', messages: [{ role: 'user', content: documents[1] }] } }] }],
    ['a bare string', documents.join(' ')],
    ['a job with ids only', { input_files: ['file-1'], model: 'mistral-small-latest', endpoint: '/v1/chat/completions' }],
  ])('estimates %s from every string the PII walk extracts, at the input price and no output', (_what, body) => {
    expect(isTokenPricedBody(body)).toBe(false);
    const estimate = estimatePassthroughCost('mistral/mistral-small-latest', body, walk(body));
    const tokens = countTexts('mistral/mistral-small-latest', extractBodyTexts(body));
    expect(tokens).toBeGreaterThan(0);
    expect(estimate).toEqual({ input_tokens: tokens, output_tokens: 0, estimated_cost: costOf('mistral/mistral-small-latest', { input_tokens: tokens }), body_strings: true });
  });

  it('counts the rerank documents in full, and adds the output a body names (times n) at the output price', () => {
    const small = { model: 'mistral-small-latest', query: 'q', documents: documents.slice(0, 1) };
    const large = { ...small, documents };
    expect(estimatePassthroughCost('mistral/mistral-small-latest', large, walk(large)).input_tokens).toBeGreaterThan(
      5 * estimatePassthroughCost('mistral/mistral-small-latest', small, walk(small)).input_tokens,
    );
    const capped = { ...small, max_tokens: 100, n: 3 };
    const estimate = estimatePassthroughCost('mistral/mistral-small-latest', capped, walk(capped));
    expect(estimate).toMatchObject({ output_tokens: 300, answers: 3, body_strings: true });
    expect(estimate.estimated_cost).toBe(costOf('mistral/mistral-small-latest', { input_tokens: estimate.input_tokens, output_tokens: 300 }));
  });

  it('prices a body without a model at the route default (DEFAULT_MODEL_PRICE for an unknown id)', () => {
    const body = ['Summarize the quarterly report.'];
    const estimate = estimatePassthroughCost('groq/', body, walk(body));
    expect(estimate.estimated_cost).toBe(costOf('groq/', { input_tokens: estimate.input_tokens }));
    expect(estimate.estimated_cost).toBeGreaterThan(0);
  });

  it('does not walk the body for a prompt body', () => {
    const body = { model: 'mistral-small-latest', messages: [{ role: 'user', content: 'hello there' }], max_tokens: 64 };
    expect(estimatePassthroughCost('mistral/mistral-small-latest', body, () => { throw new Error('walked'); })).toEqual(estimateCost('mistral/mistral-small-latest', body));
  });

  it.each([
    ['chat messages', { model: 'mistral-small-latest', messages: [{ role: 'user', content: 'hello there' }], max_tokens: 64 }],
    ['a FIM prompt', { model: 'codestral-latest', prompt: 'def add(a, b):', suffix: '    return total', max_tokens: 64 }],
    ['a conversation', { model: 'mistral-small-latest', inputs: [{ role: 'user', content: 'hello there' }] }],
    ['an embeddings input', { model: 'mistral-embed', input: ['hello there'] }],
  ])('estimates %s like any other route', (_what, body) => {
    expect(isTokenPricedBody(body)).toBe(true);
    const estimate = estimatePassthroughCost('mistral/mistral-small-latest', body, walk(body));
    expect(estimate).toEqual(estimateCost('mistral/mistral-small-latest', body));
    expect(estimate.input_tokens).toBeGreaterThan(0);
  });

  it('counts a FIM suffix, conversation inputs and a Responses-style input with its instructions', () => {
    expect(countInput('codestral', { prompt: 'def add(a, b):', suffix: ' return a + b' }).tokens).toBeGreaterThan(countInput('codestral', { prompt: 'def add(a, b):' }).tokens);
    expect(countInput('mistral-small', { inputs: 'hello there, how are you' }).tokens).toBeGreaterThan(3);
    const items = { input: [{ role: 'user', content: [{ type: 'input_text', text: 'Summarize the attached report in three lines.' }] }] };
    expect(countInput('gpt-4o', items).tokens).toBeGreaterThan(10);
    expect(countInput('gpt-4o', { ...items, instructions: 'Answer in French, briefly.' }).tokens).toBeGreaterThan(countInput('gpt-4o', items).tokens);
  });

  it('takes a Responses-style max_output_tokens as the output limit: such an input is not an embeddings input', () => {
    const body = { model: 'grok-4', input: 'Write a haiku', max_output_tokens: 300 };
    expect(isEmbeddingsRequest(body)).toBe(false);
    expect(maxOutputTokens(body)).toBe(300);
    expect(estimatePassthroughCost('xai/grok-4', body, walk(body)).output_tokens).toBe(300);
    const embed = { model: 'grok-4', input: 'Write a haiku' };
    expect(estimatePassthroughCost('xai/grok-4', embed, walk(embed)).output_tokens).toBe(0);
  });
});
