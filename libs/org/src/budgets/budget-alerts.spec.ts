import { alertChanges, utilizationPct } from './budget-alerts';

describe('budget alerts', () => {
  const alerts = (triggered: boolean[]) => [50, 80, 100].map((threshold, i) => ({ threshold, triggered: triggered[i] }));

  it('triggers every threshold the spend has reached', () => {
    expect(alertChanges(alerts([false, false, false]), 8, 10)).toEqual([
      { index: 0, triggered: true },
      { index: 1, triggered: true },
    ]);
    expect(alertChanges(alerts([true, true, false]), 10, 10)).toEqual([{ index: 2, triggered: true }]);
  });

  it('resets alerts when spend falls back below them (a new period)', () => {
    expect(alertChanges(alerts([true, true, true]), 6, 10)).toEqual([
      { index: 1, triggered: false },
      { index: 2, triggered: false },
    ]);
    expect(alertChanges(alerts([true, false, false]), 0, 10)).toEqual([{ index: 0, triggered: false }]);
  });

  it('does not trigger a 0 % threshold without spend, and changes nothing that is already right', () => {
    expect(alertChanges([{ threshold: 0, triggered: false }], 0, 10)).toEqual([]);
    expect(alertChanges([{ threshold: 0, triggered: false }], 0.01, 10)).toEqual([{ index: 0, triggered: true }]);
    expect(alertChanges(alerts([true, false, false]), 5, 10)).toEqual([]);
  });

  it('computes utilization in percent', () => {
    expect(utilizationPct(2.5, 10)).toBe(25);
    expect(utilizationPct(1, 0)).toBe(0);
  });
});
