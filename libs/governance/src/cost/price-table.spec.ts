import { matchPrice, priceFor } from './price-lookup';
import { ModelPrice, MODEL_PRICES } from './prices';

/** Every number of a price (tiers and tool fees included), by field path. */
function priceNumbers(price: ModelPrice): [string, unknown][] {
  const { long_context: tier, tool_fees: fees, ...flat } = price;
  const numbers: [string, unknown][] = Object.entries(flat);
  if (tier) {
    numbers.push(['long_context.above_input_tokens', tier.above_input_tokens]);
    for (const [field, value] of Object.entries(tier.price)) numbers.push([`long_context.price.${field}`, value]);
  }
  for (const [counter, fee] of Object.entries(fees ?? {})) numbers.push([`tool_fees.${counter}`, fee]);
  return numbers;
}

const isPrice = (value: unknown): boolean => typeof value === 'number' && Number.isFinite(value) && value >= 0;

describe('MODEL_PRICES data', () => {
  it('has a finite, non-negative number in every price field of every entry', () => {
    const bad = Object.entries(MODEL_PRICES).flatMap(([key, price]) =>
      [['input', price.input] as [string, unknown], ['output', price.output] as [string, unknown], ...priceNumbers(price)]
        .filter(([, value]) => !isPrice(value))
        .map(([field, value]) => `${key}.${field}=${String(value)}`),
    );
    expect(bad).toEqual([]);
  });

  it('has lower-case keys, as the lookup compares them', () => {
    expect(Object.keys(MODEL_PRICES).filter((key) => key !== key.toLowerCase())).toEqual([]);
  });

  it('prices the current Claude models at Anthropic\'s list prices (input, 5-minute and 1-hour writes, cache read, output)', () => {
    const b = (input: number, cache_write: number, cache_write_1h: number, cached_input: number, output: number) => ({ input, output, cached_input, cache_write, cache_write_1h });
    expect(priceFor('claude-opus-5-5')).toEqual(b(4, 5, 8, 0.2, 20));
    expect(priceFor('claude-opus-4-8')).toEqual(b(5, 6.25, 10, 0.5, 25));
    expect(priceFor('claude-fable-5-1')).toEqual(b(10, 12.5, 20, 0.25, 50));
    expect(priceFor('claude-mythos-5')).toEqual(b(10, 12.5, 20, 1, 50));
    // Anthropic's ids and the aggregators' dotted forms find the same entries.
    expect(matchPrice('anthropic/claude-opus-5.5').key).toBe('claude-opus-5-5');
    expect(matchPrice('claude-opus-4.8').key).toBe('claude-opus-4-8');
    // The Opus 5.5 entry is its own: Opus 5 is not priced as it, nor it as Opus 5.
    expect(priceFor('claude-opus-5').input).toBe(5);
  });

  it('prices Gemini 2.5 Flash audio input above its text input, and GPT-6.2 Sol with its long-context tier', () => {
    expect(priceFor('gemini-2.5-flash')).toMatchObject({ input: 0.3, output: 2.5, cached_input: 0.03, audio_input: 1 });
    expect(priceFor('gpt-6.2-sol')).toMatchObject({ input: 2, output: 10, cached_input: 0.1, long_context: { above_input_tokens: 272_000, price: { input: 4, output: 15, cached_input: 0.2 } } });
  });

  it('leaves the models whose prices the pages did not settle to the default price', () => {
    for (const model of ['claude-sonnet-5-5', 'claude-haiku-5-5', 'claude-fable-5-2', 'gpt-6.2-astra', 'claude-unlisted-test-1']) {
      expect([model, matchPrice(model).key]).toEqual([model, null]);
    }
  });
});
