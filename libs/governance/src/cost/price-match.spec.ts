import { pricedModel } from '../chain/context';
import { isSnapshotSuffix, matchPrice, PRICE_MATCH_CACHE_SIZE, priceFor } from './price-lookup';
import { DEFAULT_MODEL_PRICE, MODEL_PRICES } from './prices';

/** How a model name finds its price: exact key, or a key plus a snapshot or alias suffix only. */
describe('matchPrice: snapshot suffixes, versions and variants', () => {
  it.each([
    ['claude-sonnet-4-5-20250929', 'claude-sonnet-4-5'],
    ['claude-opus-4-20250514', 'claude-opus-4'],
    ['claude-haiku-4-5-20251001', 'claude-haiku-4-5'],
    ['claude-3-5-haiku-latest', 'claude-3-5-haiku'],
    ['gpt-4.1-2025-04-14', 'gpt-4.1'],
    ['gpt-5-2025-08-07', 'gpt-5'],
    ['gpt-5.2-2025-12-11', 'gpt-5.2'],
    ['gpt-3.5-turbo-0125', 'gpt-3.5-turbo'],
    ['gpt-4-0613', 'gpt-4'],
    ['gpt-4-1106-preview', 'gpt-4-1106'],
    ['gpt-4-turbo-preview', 'gpt-4-turbo'],
    ['o1-preview-2024-09-12', 'o1'],
    ['gemini-2.5-flash-preview-05-20', 'gemini-2.5-flash'],
    ['gemini-2.5-flash-lite-preview-09-2025', 'gemini-2.5-flash-lite'],
    ['gemini-2.5-pro-exp-03-25', 'gemini-2.5-pro'],
    ['gemini-2.0-flash-exp', 'gemini-2.0-flash'],
    ['gemini-2.0-flash-001', 'gemini-2.0-flash'],
    ['gemini-3-flash-preview', 'gemini-3-flash'],
    ['gemini-3.1-flash-lite-preview', 'gemini-3.1-flash-lite'],
    ['mistral-small-2503', 'mistral-small'],
    ['codestral-latest', 'codestral'],
    ['claude-opus-4-1@20250805', 'claude-opus-4-1'],
    ['claude-3-5-sonnet-v2@20241022', 'claude-3-5-sonnet'],
  ])('%s is a snapshot or alias of %s', (model, key) => {
    expect(matchPrice(model).key).toBe(key);
  });

  it.each([
    // A newer version of a listed model.
    ['claude-opus-4-99', 'claude-opus-4'],
    ['claude-sonnet-4-7', 'claude-sonnet-4'],
    ['gpt-5.6', 'gpt-5'],
    ['gpt-5.4.1', 'gpt-5.4'],
    ['o3-2', 'o3'],
    // Another variant of a listed model.
    ['gemini-3-pro-image-preview', 'gemini-3-pro'],
    ['gemini-2.5-flash-image', 'gemini-2.5-flash'],
    ['gemini-2.5-flash-preview-tts', 'gemini-2.5-flash'],
    ['gpt-4o-realtime-preview', 'gpt-4o'],
    ['gpt-4o-mini-search-preview', 'gpt-4o-mini'],
    ['gpt-4o-transcribe', 'gpt-4o'],
    ['gpt-5.2-chat-latest', 'gpt-5.2'],
    ['gpt-5.1-codex', 'gpt-5.1'],
    ['gpt-4.1-nano-x', 'gpt-4.1-nano'],
    ['o3-deep-research', 'o3'],
    ['grok-4-fast-reasoning', 'grok-4'],
    ['gpt-4o-2024-08-06-x7f3', 'gpt-4o'],
  ])('%s is not priced as %s: it falls to the default', (model, family) => {
    expect(MODEL_PRICES[family]).toBeDefined();
    expect(matchPrice(model)).toEqual({ price: DEFAULT_MODEL_PRICE, key: null });
  });

  it('prices the newer models the table lists at their own prices, not their family\'s', () => {
    expect(matchPrice('claude-opus-4-7')).toMatchObject({ key: 'claude-opus-4-7', price: { input: 5, output: 25, cached_input: 0.5, cache_write: 6.25, cache_write_1h: 10 } });
    expect(priceFor('claude-opus-4-5-20251101')).toMatchObject({ input: 5, output: 25 });
    expect(priceFor('claude-opus-4-0')).toBe(MODEL_PRICES['claude-opus-4']);
    expect(priceFor('claude-sonnet-4-0')).toBe(MODEL_PRICES['claude-sonnet-4']);
    expect(priceFor('gpt-5.2')).toEqual({ input: 1.75, output: 14, cached_input: 0.175 });
    expect(priceFor('gpt-5.2-pro')).toEqual({ input: 21, output: 168 });
    expect(priceFor('gpt-5.5')).toEqual({ input: 5, output: 30, cached_input: 0.5, long_context: { above_input_tokens: 272_000, price: { input: 10, output: 45, cached_input: 1 } } });
    expect(priceFor('gpt-5-codex')).toEqual({ input: 1.25, output: 10, cached_input: 0.125 });
    expect(priceFor('gemini-3-flash-preview')).toEqual({ input: 0.5, output: 3, cached_input: 0.05 });
    expect(priceFor('gemini-3.1-flash-lite')).toEqual({ input: 0.25, output: 1.5, cached_input: 0.025 });
  });

  it('takes the longest key the id extends by a snapshot suffix', () => {
    expect(matchPrice('gpt-4o-audio-preview-2024-12-17').key).toBe('gpt-4o-audio-preview');
    expect(matchPrice('gpt-4o-mini-audio-preview').key).toBe('gpt-4o-mini-audio-preview');
    expect(matchPrice('gpt-4o-mini-2024-07-18').key).toBe('gpt-4o-mini');
    expect(matchPrice('gpt-4o-2024-05-13').key).toBe('gpt-4o-2024-05-13');
    expect(matchPrice('mistral-large-2512').key).toBe('mistral-large-2512');
    expect(matchPrice('mistral-large-2411').key).toBe('mistral-large');
    // A -latest alias with an entry of its own is matched exactly, not as a suffix of its family.
    expect(matchPrice('mistral-large-latest').key).toBe('mistral-large-latest');
    expect(matchPrice('mistral/mistral-small-latest').key).toBe('mistral-small-latest');
    // In a table of its own, the longer key wins whatever the order of the entries.
    const table = { m: { input: 1, output: 1 }, 'm-audio': { input: 2, output: 2 } };
    expect(matchPrice('m-audio-20250101', { table }).key).toBe('m-audio');
    expect(matchPrice('m-20250101', { table }).key).toBe('m');
    expect(matchPrice('m-video', { table }).key).toBeNull();
  });

  it('resolves what the lookup receives, `provider/model`, as before, route prefixes and fine-tunes included', () => {
    expect(pricedModel('openai', 'gpt-4o-2024-08-06')).toBe('openai/gpt-4o-2024-08-06');
    expect(matchPrice(pricedModel('openai', 'gpt-4o-2024-08-06')).key).toBe('gpt-4o');
    expect(matchPrice(pricedModel('anthropic', 'claude-opus-4-99')).key).toBeNull();
    expect(matchPrice(pricedModel('gemini', 'models/gemini-2.5-flash-preview-05-20')).key).toBe('gemini-2.5-flash');
    expect(matchPrice(pricedModel('groq', 'llama-3.3-70b-versatile')).key).toBe('llama-3.3-70b-versatile');
    expect(matchPrice('openrouter/anthropic/claude-3-7-sonnet-20250219').key).toBe('claude-3-7-sonnet');
    // An aggregator's dotted Claude ids: Anthropic's dashed form.
    expect(matchPrice('openrouter/anthropic/claude-sonnet-4.5').key).toBe('claude-sonnet-4-5');
    expect(matchPrice('openrouter/anthropic/claude-opus-4.7').key).toBe('claude-opus-4-7');
    expect(matchPrice('openrouter/anthropic/claude-opus-4.99').key).toBeNull();
    // A key naming its route prices that route only.
    expect(priceFor(pricedModel('groq', 'openai/gpt-oss-120b'))).toEqual({ input: 0.15, output: 0.6 });
    expect(priceFor(pricedModel('cerebras', 'gpt-oss-120b'))).toEqual({ input: 0.35, output: 0.75 });
    expect(matchPrice(pricedModel('together', 'openai/gpt-oss-120b')).key).toBeNull();
    expect(matchPrice(pricedModel('ollama', 'llama3.2:latest')).key).toBe('ollama/');
    expect(matchPrice('ft:gpt-4.1-mini-2025-04-14:acme:support:abc123').key).toBe('ft:gpt-4.1-mini');
    expect(matchPrice('ft:gpt-4o-mini:acme::abc123').key).toBe('ft:gpt-4o-mini');
    expect(matchPrice('ft:gpt-5.5-x:acme::abc123').key).toBeNull();
  });

  it('reads a suffix as a snapshot only when every part of it is one', () => {
    for (const rest of ['-20250929', '-2025-04-14', '-0613', '-001', '-latest', '-preview', '-preview-05-20', '-preview-09-2025', '-exp', '-exp-1206', '@20250514', '@001', '-v2@20241022', '-0125-preview']) {
      expect([rest, isSnapshotSuffix(rest)]).toEqual([rest, true]);
    }
    for (const rest of ['', '-7', '.5', '-5-20251101', '-mini', '-image-preview', '-audio-preview-2024-12-17', '-latest-x', '-preview-tts', '-25', '-20250929x', '@x', '-search-preview', '-12345']) {
      expect([rest, isSnapshotSuffix(rest)]).toEqual([rest, false]);
    }
    // Longer than any real suffix: a crafted name is not a snapshot, and costs no backtracking.
    expect(isSnapshotSuffix('-preview-2025-06-05@20250605')).toBe(true);
    expect(isSnapshotSuffix('-latest'.repeat(7))).toBe(false);
    expect(matchPrice(`gpt-4o${'-preview-0520'.repeat(5000)}x`).key).toBeNull();
  });
});

describe('matchPrice: the resolved match is cached per model name', () => {
  it('returns the same frozen match for the same name, resolved once, within a bounded cache', () => {
    const table = { cached: { input: 1, output: 2 } };
    const first = matchPrice('cached-20250101', { table });
    expect(first).toEqual({ price: { input: 1, output: 2 }, key: 'cached' });
    expect(Object.isFrozen(first)).toBe(true);
    // The same name (any case, any surrounding space) is the cached entry; another name its own.
    expect(matchPrice(' CACHED-20250101 ', { table })).toBe(first);
    const other = matchPrice('cached-latest', { table });
    expect(other).toEqual(first);
    expect(other).not.toBe(first);
    // A name the table does not price: the default match, one object per default price.
    const defaultPrice = { input: 9, output: 9 };
    expect(matchPrice('unknown-model', { table, defaultPrice })).toEqual({ price: defaultPrice, key: null });
    expect(matchPrice('unknown-model', { table, defaultPrice })).toBe(matchPrice('another-unknown', { table, defaultPrice }));
    // Filling the cache with other names clears it: the name is resolved again, to a new object.
    for (let i = 0; i < PRICE_MATCH_CACHE_SIZE; i++) matchPrice(`cached-${i}`, { table });
    const again = matchPrice('cached-20250101', { table });
    expect(again).toEqual(first);
    expect(again).not.toBe(first);
  });
});
