import { contextFor } from './governance.fixtures';
import { decisionHeaders, usdHeader } from './headers';

describe('decisionHeaders', () => {
  it('X-SVC-Daily-Budget is the daily budget in force: the policy, or a lower auto-stop named budget', () => {
    const plain = decisionHeaders(contextFor({ profile: { policy: { daily_budget: 100 } } }), 0.1);
    expect(plain['X-SVC-Daily-Budget']).toBe('100');
    const capped = contextFor({
      profile: {
        policy: { daily_budget: 100 },
        autoStopBudgets: [
          { id: 'budget_1', name: 'Team cap', limit: 25 },
          { id: 'budget_2', name: 'Hard cap', limit: 5 },
        ],
      },
    });
    expect(decisionHeaders(capped, 0.1)['X-SVC-Daily-Budget']).toBe('5');
    const above = contextFor({ profile: { policy: { daily_budget: 10 }, autoStopBudgets: [{ id: 'budget_3', name: 'Loose', limit: 50 }] } });
    expect(decisionHeaders(above, 0.1)['X-SVC-Daily-Budget']).toBe('10');
  });

  it('writes USD amounts in plain decimals, never in exponent form', () => {
    expect(usdHeader(6e-8)).toBe('0.00000006');
    expect(usdHeader(1.234e-7)).toBe('0.0000001234');
    expect(usdHeader(0.00014519999999999998)).toBe('0.0001452');
    expect(usdHeader(0.000001)).toBe('0.000001');
    expect(usdHeader(0)).toBe('0');
    expect(usdHeader(100)).toBe('100');
  });
});
