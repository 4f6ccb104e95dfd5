import { costAtPrice, costOf, matchPrice, priceFor, promptTokensOf, TokenUsage } from './price-lookup';
import { DEFAULT_MODEL_PRICE, ModelPrice, MODEL_PRICES, SERVER_TOOL_FEES } from './prices';

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
    ['magistral-medium-latest', 'magistral-medium'],
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
    expect(priceFor('gemini-2.5-pro')).toMatchObject({ input: 1.25, output: 10, cached_input: 0.125 });
    expect(priceFor('gemini-2.5-flash')).toEqual({ input: 0.3, output: 2.5, cached_input: 0.03, audio_input: 1 });
    expect(priceFor('gemini-2.5-flash-lite')).toEqual({ input: 0.1, output: 0.4, cached_input: 0.01 });
    expect(priceFor('mistral-large-2512')).toEqual({ input: 0.5, output: 1.5 });
    expect(priceFor('mistral-large-2411')).toEqual({ input: 2, output: 6 });
  });

  it.each([
    // [alias, the version it names, that version's price, an older version kept at the family's price, that price]
    ['mistral-large-latest', 'mistral-large-2512', { input: 0.5, output: 1.5 }, 'mistral-large-2407', { input: 2, output: 6 }],
    ['mistral-small-latest', 'mistral-small-2603', { input: 0.15, output: 0.6 }, 'mistral-small-2506', { input: 0.1, output: 0.3 }],
    ['ministral-8b-latest', 'ministral-8b-2512', { input: 0.15, output: 0.15 }, 'ministral-8b-2410', { input: 0.1, output: 0.1 }],
    ['ministral-3b-latest', 'ministral-3b-2512', { input: 0.1, output: 0.1 }, 'ministral-3b-2410', { input: 0.04, output: 0.04 }],
  ])('prices Mistral\'s %s as the version it names (%s), not as the older versions of its family', (alias, version, price, older, olderPrice) => {
    for (const id of [alias, version, `mistral/${alias}`, alias.toUpperCase()]) expect({ id, price: priceFor(id) }).toEqual({ id, price });
    expect(priceFor(older)).toEqual(olderPrice);
    expect(costOf(alias, { input_tokens: 1_000_000, output_tokens: 1_000_000 })).toBeCloseTo(price.input + price.output, 12);
  });

  it('prices Mistral Medium 3.5 and Large 4 by their API names, not at the default price or as older versions', () => {
    for (const id of ['mistral-medium-3.5', 'mistral-medium-3', 'mistral/mistral-medium-3.5']) expect({ id, price: priceFor(id) }).toEqual({ id, price: { input: 1.5, output: 7.5 } });
    for (const id of ['mistral-large-4', 'mistral-large-4-0']) expect({ id, price: priceFor(id) }).toEqual({ id, price: { input: 0.68, output: 2.09, cached_input: 0.07 } });
    expect(priceFor('mistral-medium-2508')).toEqual({ input: 0.4, output: 2 });
    expect(priceFor('mistral-large-2411')).toEqual({ input: 2, output: 6 });
  });

  it('prices the Mistral aliases that name the family\'s own version at the family\'s price', () => {
    expect(priceFor('mistral-medium-latest')).toEqual(priceFor('mistral-medium-2508'));
    expect(priceFor('codestral-latest')).toEqual({ input: 0.3, output: 0.9 });
    expect(priceFor('magistral-medium-latest')).toEqual({ input: 2, output: 5 });
    expect(priceFor('magistral-small-latest')).toEqual({ input: 0.5, output: 1.5 });
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
    expect(priceFor('claude-sonnet-4-20250514')).toMatchObject({ input: 3, output: 15, cached_input: 0.3, cache_write: 3.75, cache_write_1h: 6 });
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

/** Every token kind at once, scaled so the prompt has `prompt` tokens: a fifth each of input, cache reads, writes and 1-hour writes, the rest input. */
function mixed(prompt: number): TokenUsage {
  const part = Math.floor(prompt / 5);
  return { input_tokens: prompt - 3 * part, cached_input_tokens: part, cache_write_input_tokens: part, cache_write_1h_input_tokens: part, output_tokens: 1000 };
}

/** The cost of `usage` at `rates`, written out: what a model's tier must produce. */
function at(rates: Omit<ModelPrice, 'long_context'>, usage: TokenUsage): number {
  const write = rates.cache_write ?? rates.input;
  return (
    ((usage.input_tokens ?? 0) * rates.input +
      (usage.cached_input_tokens ?? 0) * (rates.cached_input ?? rates.input) +
      (usage.cache_write_input_tokens ?? 0) * write +
      (usage.cache_write_1h_input_tokens ?? 0) * (rates.cache_write_1h ?? write) +
      (usage.output_tokens ?? 0) * rates.output) /
    1e6
  );
}

describe('long-context tiers', () => {
  const SONNET_BASE = { input: 3, output: 15, cached_input: 0.3, cache_write: 3.75, cache_write_1h: 6 };
  const SONNET_LONG = { input: 6, output: 22.5, cached_input: 0.6, cache_write: 7.5, cache_write_1h: 12 };

  it('has the vendors\' tiers as data: threshold and the prices above it', () => {
    for (const model of ['claude-sonnet-4-20250514', 'claude-sonnet-4-5-20250929']) {
      expect(priceFor(model)).toEqual({ ...SONNET_BASE, long_context: { above_input_tokens: 200_000, price: SONNET_LONG } });
    }
    expect(priceFor('gemini-2.5-pro')).toEqual({ input: 1.25, output: 10, cached_input: 0.125, long_context: { above_input_tokens: 200_000, price: { input: 2.5, output: 15, cached_input: 0.25 } } });
    for (const model of ['gemini-3-pro-preview', 'gemini-3.1-pro-preview']) {
      expect(priceFor(model)).toEqual({ input: 2, output: 12, cached_input: 0.2, long_context: { above_input_tokens: 200_000, price: { input: 4, output: 18, cached_input: 0.4 } } });
    }
    expect(priceFor('gpt-5.4-2026-03-05')).toEqual({ input: 2.5, output: 15, cached_input: 0.25, long_context: { above_input_tokens: 272_000, price: { input: 5, output: 22.5, cached_input: 0.5 } } });
    expect(priceFor('gpt-5.4-pro')).toEqual({ input: 30, output: 180, long_context: { above_input_tokens: 272_000, price: { input: 60, output: 270 } } });
  });

  it('keeps the models without a tier flat, including the 1M-context Claude 4.6 models and GPT-5.4 mini and nano', () => {
    expect(priceFor('claude-sonnet-4-6')).toEqual(SONNET_BASE);
    expect(priceFor('claude-opus-4-6')).toEqual({ input: 5, output: 25, cached_input: 0.5, cache_write: 6.25, cache_write_1h: 10 });
    expect(priceFor('gpt-5.4-mini')).toEqual({ input: 0.75, output: 4.5, cached_input: 0.075 });
    expect(priceFor('gpt-5.4-nano')).toEqual({ input: 0.2, output: 1.25, cached_input: 0.02 });
    const tiered = Object.keys(MODEL_PRICES).filter((key) => MODEL_PRICES[key].long_context);
    expect(tiered.sort()).toEqual(['claude-sonnet-4', 'claude-sonnet-4-0', 'claude-sonnet-4-5', 'gemini-2.5-pro', 'gemini-3-pro', 'gemini-3.1-pro', 'gpt-5.4', 'gpt-5.4-pro', 'gpt-5.5', 'gpt-6.2-sol']);
    // A long prompt to a model without a tier costs what it always did.
    expect(costOf('claude-sonnet-4-6', mixed(900_000))).toBeCloseTo(at(SONNET_BASE, mixed(900_000)), 15);
    expect(costOf('gpt-4.1', { input_tokens: 1_000_000, output_tokens: 1_000_000 })).toBe(10);
  });

  it('prices every tier above its model\'s base prices, field by field', () => {
    for (const [key, price] of Object.entries(MODEL_PRICES)) {
      const tier = price.long_context;
      if (!tier) continue;
      const fields = ['input', 'output', 'cached_input', 'cache_write', 'cache_write_1h'] as const;
      for (const field of fields) expect([key, field, price[field] === undefined || (tier.price[field] ?? 0) > (price[field] ?? 0)]).toEqual([key, field, true]);
      expect([key, tier.above_input_tokens >= 128_000]).toEqual([key, true]);
    }
  });

  it.each([
    ['claude-sonnet-4-5', 200_000, SONNET_BASE, SONNET_LONG],
    ['claude-sonnet-4-20250514', 200_000, SONNET_BASE, SONNET_LONG],
    ['gemini-2.5-pro', 200_000, { input: 1.25, output: 10, cached_input: 0.125 }, { input: 2.5, output: 15, cached_input: 0.25 }],
    ['gemini-3.1-pro-preview', 200_000, { input: 2, output: 12, cached_input: 0.2 }, { input: 4, output: 18, cached_input: 0.4 }],
    ['gpt-5.4', 272_000, { input: 2.5, output: 15, cached_input: 0.25 }, { input: 5, output: 22.5, cached_input: 0.5 }],
  ])('%s: a prompt of up to %i tokens pays the base prices, one token more pays the tier for every token', (model, threshold, base, long) => {
    for (const prompt of [threshold - 1, threshold]) {
      const usage = mixed(prompt);
      expect(promptTokensOf(usage)).toBe(prompt);
      expect([prompt, costOf(model, usage)]).toEqual([prompt, at(base, usage)]);
    }
    const above = mixed(threshold + 1);
    expect(promptTokensOf(above)).toBe(threshold + 1);
    expect(costOf(model, above)).toBeCloseTo(at(long, above), 15);
    // The output alone never crosses the threshold.
    expect(costOf(model, { input_tokens: 10, output_tokens: threshold * 2 })).toBeCloseTo(at(base, { input_tokens: 10, output_tokens: threshold * 2 }), 15);
  });

  it('counts every prompt token toward the threshold: B cache reads and writes, A cached and audio input', () => {
    // 50,000 input + 150,001 read from the cache: a 200,001-token prompt, all of it at the tier.
    const usage = { input_tokens: 50_000, cached_input_tokens: 150_001, output_tokens: 2000 };
    expect(costOf('claude-sonnet-4-5', usage)).toBeCloseTo((50_000 * 6 + 150_001 * 0.6 + 2000 * 22.5) / 1e6, 15);
    expect(costOf('claude-sonnet-4-5', { ...usage, cached_input_tokens: 150_000 })).toBeCloseTo((50_000 * 3 + 150_000 * 0.3 + 2000 * 15) / 1e6, 15);
    const written = { input_tokens: 100, cache_write_input_tokens: 150_000, cache_write_1h_input_tokens: 49_901, output_tokens: 10 };
    expect(costOf('claude-sonnet-4', written)).toBeCloseTo((100 * 6 + 150_000 * 7.5 + 49_901 * 12 + 10 * 22.5) / 1e6, 15);
    expect(promptTokensOf({ input_tokens: 1, cached_input_tokens: 2, cache_write_input_tokens: 3, cache_write_1h_input_tokens: 4, audio_input_tokens: 5, output_tokens: 100 })).toBe(15);
    expect(promptTokensOf({ input_tokens: -5, cached_input_tokens: Number.NaN })).toBe(0);
    expect(costOf('gpt-5.4', { input_tokens: 200_000, cached_input_tokens: 72_001, output_tokens: 100 })).toBeCloseTo((200_000 * 5 + 72_001 * 0.5 + 100 * 22.5) / 1e6, 15);
  });

  it('keeps the model\'s tool fees above the threshold, and reads tiers from a configured table', () => {
    const long = { input_tokens: 250_000, output_tokens: 100 };
    expect(costOf('claude-sonnet-4-5', { ...long, tool_uses: { web_search_requests: 2 } })).toBeCloseTo(costOf('claude-sonnet-4-5', long) + 0.02, 15);
    const table = { mine: { input: 1, output: 2, tool_fees: { web_search_requests: 0.5 }, long_context: { above_input_tokens: 10, price: { input: 10, output: 20 } } } };
    expect(costOf('mine', { input_tokens: 10, output_tokens: 1 }, { table })).toBeCloseTo(12 / 1e6, 18);
    expect(costOf('mine', { input_tokens: 11, output_tokens: 1, tool_uses: { web_search_requests: 1 } }, { table })).toBeCloseTo(130 / 1e6 + 0.5, 15);
    expect(costAtPrice(table.mine, { input_tokens: 11 })).toBeCloseTo(110 / 1e6, 18);
  });
});
