import { matchPrice, pricedModel } from '@svc/governance';
import { resolveRoute } from '../providers/routing';
import { BUILTIN_MODEL_ALIASES } from './model-aliases';

describe('BUILTIN_MODEL_ALIASES', () => {
  const aliases = new Map(Object.entries(BUILTIN_MODEL_ALIASES));
  const matchOf = (alias: string) => {
    const route = resolveRoute({ model: alias, aliases });
    return matchPrice(pricedModel(route.provider.id, route.upstreamModel));
  };

  it('resolve to models the price table lists, so a call by alias is never charged DEFAULT_MODEL_PRICE', () => {
    const unpriced = [...aliases.keys()].filter((alias) => matchOf(alias).key === null);
    expect(unpriced).toEqual([]);
  });

  it('resolve to prices that are finite and not negative', () => {
    const bad = [...aliases.keys()].filter((alias) => {
      const { price } = matchOf(alias);
      const numbers = [price.input, price.output, price.cached_input ?? 0, price.cache_write ?? 0, price.cache_write_1h ?? 0];
      return !numbers.every((n) => Number.isFinite(n) && n >= 0);
    });
    expect(bad).toEqual([]);
  });

  it('follow the current Opus: claude-opus-latest is Opus 5.5 (Opus 5 is legacy)', () => {
    expect(BUILTIN_MODEL_ALIASES['claude-opus-latest']).toBe('claude-opus-5-5');
    expect(matchOf('claude-opus-latest').key).toBe('claude-opus-5-5');
  });
});
