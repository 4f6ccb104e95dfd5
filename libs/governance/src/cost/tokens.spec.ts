import { DEFAULT_MAX_OUTPUT_TOKENS } from '../data/limits';
import { estimateCost } from './estimate';
import { costOf } from './price-lookup';
import { approximateTokens, countTextTokens, tokenizerFor, warmUpTokenizers } from './tokenizer';
import { EXACT_COUNT_CHAR_BUDGET, IMAGE_TOKEN_ESTIMATE, countInput, isEmbeddingsRequest, maxOutputTokens } from './tokens';

beforeAll(() => warmUpTokenizers());

describe('tokenizerFor', () => {
  it.each([
    ['gpt-4o', 'o200k_base', true],
    ['gpt-4o-mini-2024-07-18', 'o200k_base', true],
    ['gpt-4.1-nano', 'o200k_base', true],
    ['o1-preview', 'o200k_base', true],
    ['o3-mini', 'o200k_base', true],
    ['o4-mini', 'o200k_base', true],
    ['ft:gpt-4o-mini:acme::x1', 'o200k_base', true],
    ['openai/gpt-4o', 'o200k_base', true],
    ['gpt-4-turbo', 'cl100k_base', true],
    ['gpt-3.5-turbo', 'cl100k_base', true],
    ['text-embedding-3-small', 'cl100k_base', true],
    ['claude-sonnet-4-20250514', 'o200k_base', false],
    ['gemini-2.5-pro', 'o200k_base', false],
    ['mistral-large-latest', 'o200k_base', false],
  ])('%s uses %s (exact: %s)', (model, encoding, exact) => {
    expect(tokenizerFor(model)).toEqual({ encoding, exact });
  });
});

describe('countTextTokens', () => {
  it('counts with the real encodings', () => {
    expect(countTextTokens('Hello world', { encoding: 'o200k_base', exact: true })).toBe(2);
    expect(countTextTokens('Hello world', { encoding: 'cl100k_base', exact: true })).toBe(2);
    expect(countTextTokens('', { encoding: 'o200k_base', exact: true })).toBe(0);
  });

  it('counts special-token strings in user text as plain text instead of failing', () => {
    expect(countTextTokens('hi <|endoftext|> there', { encoding: 'o200k_base', exact: true })).toBeGreaterThan(3);
  });

  it('never undercuts characters/4 for approximated families', () => {
    const text = 'a'.repeat(400);
    expect(countTextTokens(text, { encoding: 'o200k_base', exact: false })).toBeGreaterThanOrEqual(approximateTokens(text));
    expect(approximateTokens('abcde')).toBe(2);
  });
});

/** The token count alone (the cache-write part has its own spec, estimate.spec.ts). */
const countInputTokens = (model: string, body: unknown) => countInput(model, body).tokens;

describe('countInput: tokens', () => {
  it('counts a format-A chat with message overhead', () => {
    const body = { model: 'gpt-4o', messages: [{ role: 'system', content: 'You are terse.' }, { role: 'user', content: 'Hello world' }] };
    // 2 messages x 4 overhead + 3 priming + "You are terse." (4) + "Hello world" (2)
    expect(countInputTokens('gpt-4o', body)).toBe(8 + 3 + 4 + 2);
  });

  it('counts content parts, images, tool calls, tool results and tool definitions', () => {
    const plain = countInputTokens('gpt-4o', { messages: [{ role: 'user', content: 'Describe' }] });
    const withParts = countInputTokens('gpt-4o', {
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Describe' }, { type: 'image_url', image_url: { url: 'https://x/y.png' } }] },
      ],
    });
    expect(withParts).toBe(plain + IMAGE_TOKEN_ESTIMATE);
    const tools = countInputTokens('gpt-4o', {
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: null, tool_calls: [{ id: '1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', tool_call_id: '1', content: 'Sunny, 24 degrees' },
      ],
      tools: [{ type: 'function', function: { name: 'weather', description: 'Get the weather', parameters: { type: 'object' } } }],
    });
    expect(tools).toBeGreaterThan(3 * 4 + 3 + 20);
  });

  it('counts a format-B body: system, blocks, tool_use and tool_result', () => {
    const body = {
      model: 'claude-sonnet-4-20250514',
      max_tokens: 1024,
      system: [{ type: 'text', text: 'You are a careful assistant.' }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'What is the weather in Paris?' }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'weather', input: { city: 'Paris' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'Sunny' }] }] },
      ],
    };
    const count = countInputTokens('claude-sonnet-4-20250514', body);
    expect(count).toBeGreaterThan(3 * 4 + 3 + 15);
    expect(countInputTokens('claude-sonnet-4-20250514', { ...body, system: 'You are a careful assistant.' })).toBe(count);
  });

  it('counts embeddings input as a string, strings or token arrays, without chat overhead', () => {
    expect(countInputTokens('text-embedding-3-small', { input: 'Hello world' })).toBe(2);
    expect(countInputTokens('text-embedding-3-small', { input: ['Hello world', 'Hello world'] })).toBe(4);
    expect(countInputTokens('text-embedding-3-small', { input: [[1, 2, 3], [4, 5]] })).toBe(5);
  });

  it('returns 0 for bodies that are not objects', () => {
    expect(countInputTokens('gpt-4o', null)).toBe(0);
    expect(countInputTokens('gpt-4o', 'text')).toBe(0);
  });

  it('falls back to 1 token per 4 characters when counting fails', () => {
    const text = 'x'.repeat(400);
    const body = {
      messages: [
        {
          role: 'user',
          get content(): string {
            throw new Error('unreadable');
          },
        },
      ],
      toJSON: () => ({ messages: [{ role: 'user', content: text }] }),
    };
    const fallback = approximateTokens(JSON.stringify(body));
    expect(countInputTokens('gpt-4o', body)).toBe(fallback);
    expect(fallback).toBeGreaterThanOrEqual(100);
  });

  it('extrapolates beyond the exact-count budget', () => {
    const text = 'word '.repeat(Math.ceil((EXACT_COUNT_CHAR_BUDGET * 1.5) / 5));
    const count = countInputTokens('gpt-4o', { input: text });
    const perChar = countTextTokens('word '.repeat(1000), { encoding: 'o200k_base', exact: true }) / 5000;
    expect(count).toBeGreaterThan(text.length * perChar * 0.9);
    expect(count).toBeLessThan(text.length * perChar * 1.1 + 10);
  });
});

describe('maxOutputTokens and estimateCost', () => {
  it('reads max_tokens or max_completion_tokens, default 4096', () => {
    expect(maxOutputTokens({ max_tokens: 100 })).toBe(100);
    expect(maxOutputTokens({ max_completion_tokens: 300 })).toBe(300);
    expect(maxOutputTokens({ max_tokens: 100, max_completion_tokens: 300 })).toBe(300);
    expect(maxOutputTokens({})).toBe(DEFAULT_MAX_OUTPUT_TOKENS);
    expect(maxOutputTokens({ max_tokens: '100' })).toBe(4096);
    expect(maxOutputTokens({ max_tokens: 0 })).toBe(4096);
    expect(maxOutputTokens(null)).toBe(4096);
  });

  it('estimates a chat request from counted input and max output tokens', () => {
    const body = { model: 'gpt-4o', messages: [{ role: 'user', content: 'Hello world' }], max_tokens: 1000 };
    const estimate = estimateCost('gpt-4o', body);
    expect(estimate).toEqual({ input_tokens: 9, output_tokens: 1000, estimated_cost: costOf('gpt-4o', { input_tokens: 9, output_tokens: 1000 }) });
    expect(estimate.estimated_cost).toBeCloseTo((9 * 2.5 + 1000 * 10) / 1e6, 12);
  });

  it('estimates embeddings with no output tokens', () => {
    expect(isEmbeddingsRequest({ input: 'x' })).toBe(true);
    expect(isEmbeddingsRequest({ input: 'x', messages: [] })).toBe(false);
    expect(estimateCost('text-embedding-3-small', { input: 'Hello world' })).toEqual({ input_tokens: 2, output_tokens: 0, estimated_cost: 2 * 0.02 / 1e6 });
  });
});

describe('token counts of repeated texts', () => {
  it('gives the same count for a long text the second time, per encoding', () => {
    const history = 'The assistant answered the question about the migration plan in detail. '.repeat(20);
    const o200k = tokenizerFor('gpt-4o');
    const cl100k = tokenizerFor('gpt-4');
    const first = countTextTokens(history, o200k);
    expect(countTextTokens(history, o200k)).toBe(first);
    const legacy = countTextTokens(history, cl100k);
    expect(countTextTokens(history, cl100k)).toBe(legacy);
    expect(legacy).not.toBe(0);
    // A changed text is counted anew, not served from the cache.
    expect(countTextTokens(`${history} and one more sentence follows here.`, o200k)).toBeGreaterThan(first);
  });
});
