import { matchPrice, pricedModel } from '@svc/governance';
import { resolveRoute } from '../providers/routing';
import { BUILTIN_MODEL_ALIASES } from './model-aliases';

describe('BUILTIN_MODEL_ALIASES', () => {
  it('resolve to models the price table lists, so a call by alias is never charged DEFAULT_MODEL_PRICE', () => {
    const aliases = new Map(Object.entries(BUILTIN_MODEL_ALIASES));
    const unpriced = [...aliases.keys()].filter((alias) => {
      const route = resolveRoute({ model: alias, aliases });
      return matchPrice(pricedModel(route.provider.id, route.upstreamModel)).key === null;
    });
    expect(unpriced).toEqual([]);
  });
});
