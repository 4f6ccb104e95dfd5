import { alertChanges, carryOverAlerts, triggeredInPeriod, utilizationPct } from './budget-alerts';

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

describe('budget alerts across periods and replaced alerts', () => {
  const periodStart = new Date('2030-01-02T00:00:00Z');
  const yesterday = new Date('2030-01-01T18:00:00Z');
  const today = new Date('2030-01-02T06:00:00Z');

  it('counts an alert triggered in an earlier period as not triggered', () => {
    expect(triggeredInPeriod({ threshold: 50, triggered: true, triggered_at: yesterday }, periodStart)).toBe(false);
    expect(triggeredInPeriod({ threshold: 50, triggered: true, triggered_at: today }, periodStart)).toBe(true);
    expect(triggeredInPeriod({ threshold: 50, triggered: true, triggered_at: null }, periodStart)).toBe(true);
    expect(triggeredInPeriod({ threshold: 50, triggered: false, triggered_at: null }, periodStart)).toBe(false);
  });

  it("triggers again an alert of yesterday that today's spend reaches", () => {
    const alerts = [
      { threshold: 50, triggered: true, triggered_at: yesterday },
      { threshold: 80, triggered: true, triggered_at: today },
    ];
    expect(alertChanges(alerts, 9, 10, periodStart)).toEqual([{ index: 0, triggered: true }]);
    expect(alertChanges(alerts, 1, 10, periodStart)).toEqual([
      { index: 0, triggered: false },
      { index: 1, triggered: false },
    ]);
  });

  it('keeps the state of thresholds a PUT leaves in place', () => {
    const previous = [
      { threshold: 50, channels: ['email' as const], triggered: true, triggered_at: today },
      { threshold: 80, channels: ['webhook' as const], triggered: false, triggered_at: null },
    ];
    expect(carryOverAlerts(previous, [{ threshold: 50, channels: ['webhook'] }, { threshold: 90, channels: ['slack'] }, { threshold: 50, channels: ['slack'] }])).toEqual([
      { threshold: 50, channels: ['webhook'], triggered: true, triggered_at: today },
      { threshold: 90, channels: ['slack'], triggered: false, triggered_at: null },
      { threshold: 50, channels: ['slack'], triggered: false, triggered_at: null },
    ]);
  });
});
