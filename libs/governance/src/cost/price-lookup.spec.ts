import { costOf, matchPrice, priceFor } from './price-lookup';
import { DEFAULT_MODEL_PRICE, MODEL_PRICES, SERVER_TOOL_FEES } from './prices';

describe('priceFor', () => {
  it('matches exact ids', () => {
    expect(priceFor('gpt-4o')).toEqual({ input: 2.5, output: 10, cached_input: 1.25 });
    expect(priceFor('gpt-4o-mini')).toEqual({ input: 0.15, output: 0.6, cached_input: 0.075 });
    expect(priceFor('o3')).toEqual({ input: 2, output: 8, cached_input: 0.5 });
  });

  it.each([
    ['gpt-4o-2024-08-06', 'gpt-4o'],
    ['gpt-4o-mini-2024-07-18', 'gpt-4o-mini'],
    ['gpt-4.1-nano-2025-04-14', 'gpt-4.1-nano'],
    ['o4-mini-2025-04-16', 'o4-mini'],
    ['claude-sonnet-4-20250514', 'claude-sonnet-4'],
    ['claude-sonnet-4-5-20250929', 'claude-sonnet-4-5'],
    ['claude-opus-4-1-20250805', 'claude-opus-4-1'],
    ['claude-3-5-haiku-20241022', 'claude-3-5-haiku'],
    ['gemini-2.5-flash-preview-05-20', 'gemini-2.5-flash'],
    ['gemini-2.5-flash-lite', 'gemini-2.5-flash-lite'],
    ['mistral-large-latest', 'mistral-large'],
    ['codestral-2501', 'codestral'],
    ['ft:gpt-4o-mini-2024-07-18:acme::abc123', 'ft:gpt-4o-mini'],
    ['text-embedding-3-small', 'text-embedding-3-small'],
  ])('matches %s by longest prefix (%s)', (model, key) => {
    expect(matchPrice(model).key).toBe(key);
  });

  it('keeps an older dated version with a different price apart from its family', () => {
    expect(priceFor('gpt-4o-2024-05-13')).toEqual({ input: 5, output: 15 });
  });

  it('ignores case and route prefixes', () => {
    expect(matchPrice('GPT-4O').key).toBe('gpt-4o');
    expect(matchPrice('groq/llama-3.3-70b-versatile').key).toBe('llama-3.3-70b-versatile');
    expect(matchPrice('models/gemini-1.5-pro-002').key).toBe('gemini-1.5-pro');
    expect(matchPrice('openrouter/anthropic/claude-3-7-sonnet-20250219').key).toBe('claude-3-7-sonnet');
    expect(priceFor('ollama/llama3.2')).toEqual({ input: 0, output: 0 });
  });

  it('uses the default price for unknown models, configurable', () => {
    expect(matchPrice('some-new-model')).toEqual({ price: DEFAULT_MODEL_PRICE, key: null });
    expect(priceFor('some-new-model', { defaultPrice: { input: 1, output: 2 } })).toEqual({ input: 1, output: 2 });
    expect(priceFor('mine', { table: { mine: { input: 7, output: 8 } } })).toEqual({ input: 7, output: 8 });
    expect(priceFor('gpt-4o', { table: { mine: { input: 7, output: 8 } } })).toEqual(DEFAULT_MODEL_PRICE);
  });

  it('has the current list prices it was checked against (Gemini 2.5 cache reads, Mistral Large 3)', () => {
    expect(priceFor('gemini-2.5-pro')).toEqual({ input: 1.25, output: 10, cached_input: 0.125 });
    expect(priceFor('gemini-2.5-flash')).toEqual({ input: 0.3, output: 2.5, cached_input: 0.03 });
    expect(priceFor('gemini-2.5-flash-lite')).toEqual({ input: 0.1, output: 0.4, cached_input: 0.01 });
    expect(priceFor('mistral-large-2512')).toEqual({ input: 0.5, output: 1.5 });
    expect(priceFor('mistral-large-2411')).toEqual({ input: 2, output: 6 });
  });

  it('covers the four provider families', () => {
    for (const key of ['gpt-4o', 'gpt-4.1', 'o1', 'o3-mini', 'text-embedding-3-large', 'claude-opus-4', 'claude-haiku-4-5', 'gemini-2.0-flash', 'mistral-small']) {
      expect(MODEL_PRICES[key]).toBeDefined();
    }
  });
});

describe('costOf', () => {
  it('prices input, output and cached input per million tokens at full precision', () => {
    expect(costOf('gpt-4o', { input_tokens: 1_000_000 })).toBe(2.5);
    expect(costOf('gpt-4o', { input_tokens: 1000, output_tokens: 500 })).toBeCloseTo(0.0075, 12);
    expect(costOf('gpt-4o', { input_tokens: 1000, cached_input_tokens: 1000 })).toBeCloseTo(0.00375, 12);
    expect(costOf('gpt-4o-mini', { input_tokens: 7 })).toBeCloseTo(0.00000105, 15);
  });

  it('prices cached tokens at the input price when the model has no cache price', () => {
    expect(costOf('gpt-4', { cached_input_tokens: 1_000_000 })).toBe(30);
    expect(costOf('gpt-4o', { cache_write_input_tokens: 1_000_000, cache_write_1h_input_tokens: 1_000_000 })).toBe(5);
  });

  it('prices B cache writes above the input price and cache reads below it', () => {
    expect(priceFor('claude-sonnet-4-20250514')).toEqual({ input: 3, output: 15, cached_input: 0.3, cache_write: 3.75, cache_write_1h: 6 });
    // 100 input, 2,000 read, 1,000 written for 5 minutes, 500 for an hour, 300 output.
    const usage = { input_tokens: 100, cached_input_tokens: 2000, cache_write_input_tokens: 1000, cache_write_1h_input_tokens: 500, output_tokens: 300 };
    expect(costOf('claude-sonnet-4-20250514', usage)).toBeCloseTo((100 * 3 + 2000 * 0.3 + 1000 * 3.75 + 500 * 6 + 300 * 15) / 1e6, 15);
    for (const [key, price] of Object.entries(MODEL_PRICES).filter(([key]) => key.startsWith('claude-'))) {
      const { input, cached_input = input, cache_write = input, cache_write_1h = cache_write } = price;
      expect([key, cache_write > input, cache_write_1h > cache_write, cached_input < input]).toEqual([key, true, true, true]);
    }
  });

  it('prices audio tokens at the audio prices, and at the text prices for a model without them', () => {
    // gpt-4o-audio-preview: 2.5 text / 40 audio input, 10 text / 80 audio output per 1M.
    const usage = { input_tokens: 100, audio_input_tokens: 1000, output_tokens: 50, audio_output_tokens: 500 };
    expect(costOf('gpt-4o-audio-preview-2024-12-17', usage)).toBeCloseTo((100 * 2.5 + 1000 * 40 + 50 * 10 + 500 * 80) / 1e6, 15);
    expect(costOf('gpt-4o', usage)).toBeCloseTo((1100 * 2.5 + 550 * 10) / 1e6, 15);
  });

  it('adds the per-use fees of server tools: web search $10 per 1,000, web fetch and unknown counters nothing', () => {
    expect(SERVER_TOOL_FEES).toEqual({ web_search_requests: 0.01, web_fetch_requests: 0 });
    const tokens = { input_tokens: 1000, output_tokens: 100 };
    const base = costOf('claude-sonnet-4-5', tokens);
    expect(costOf('claude-sonnet-4-5', { ...tokens, tool_uses: { web_search_requests: 3 } })).toBeCloseTo(base + 0.03, 15);
    expect(costOf('claude-sonnet-4-5', { ...tokens, tool_uses: { web_fetch_requests: 2, code_execution_requests: 4 } })).toBe(base);
    // Counter names come from the provider's JSON: none of them reaches the object's prototype.
    expect(costOf('claude-sonnet-4-5', { ...tokens, tool_uses: { constructor: 2, toString: 1, web_search_requests: -1 } })).toBe(base);
    expect(costOf('mine', { tool_uses: { web_search_requests: 2 } }, { table: { mine: { input: 1, output: 1, tool_fees: { web_search_requests: 0.005 } } } })).toBe(0.01);
  });

  it('ignores missing, negative and non-finite counts', () => {
    expect(costOf('gpt-4o', {})).toBe(0);
    expect(costOf('gpt-4o', { input_tokens: -5, output_tokens: Number.NaN })).toBe(0);
  });
});
