import { dominantModels, evaluateAnomalies, hourlySpike, modelDrift, runawayAgent, severity, volumeSurge } from './anomaly-rules';
import { AgentUsage, DAY_MS, HOUR_MS, UsageSnapshot } from './usage-snapshot';

const now = new Date('2025-03-10T14:30:00.000Z');
const group = (agent: string | null, cost: number, requests: number, model = 'gpt-4o-mini'): AgentUsage => ({
  agent,
  cost,
  requests,
  completed: requests,
  models: [{ model, cost, requests, completed: requests }],
});
const snapshot = (overrides: Partial<UsageSnapshot> = {}): UsageSnapshot => ({
  orgId: 'org_rules',
  now,
  windowStart: new Date(now.getTime() - HOUR_MS),
  firstUsageAt: new Date(now.getTime() - 8 * DAY_MS),
  current: [],
  previousDay: [],
  previousWeekCost: 0,
  sameHourRequests: [1, 2, 3, 4, 5, 6, 7].map((daysAgo) => ({ daysAgo, requests: 10 })),
  dailyBudget: 100,
  ...overrides,
});

describe('anomaly rules', () => {
  describe('hourly_spike', () => {
    it('fires above 3x the 7-day hourly average, with SPEC data', () => {
      // $168 over the week = $1/hour; $5 in the last hour is 5x.
      const finding = hourlySpike(snapshot({ previousWeekCost: 168, current: [group('bot', 5, 5)] }));
      expect(finding).toMatchObject({
        anomaly_type: 'hourly_spike',
        severity: 'medium',
        current_value: 5,
        threshold_value: 3,
        multiplier: 5,
        details: { baseline_hourly_average: 1, baseline_hours: 168, current_requests: 5, window_end: now.toISOString() },
      });
      expect(finding?.message).toBe('Cost of the last hour ($5.00) is 5x the 7-day hourly average ($1.00)');
      expect(hourlySpike(snapshot({ previousWeekCost: 168, current: [group('bot', 10, 5)] }))?.severity).toBe('critical');
    });

    it('shows amounts without float noise, sub-micro-dollar digits kept (10 decimals)', () => {
      const cost = 1.1 + 3.2000002;
      expect(cost).toBe(4.3000001999999995);
      const finding = hourlySpike(snapshot({ previousWeekCost: 168, current: [group('bot', cost, 5)] }));
      expect(finding).toMatchObject({ current_value: 4.3000002, threshold_value: 3 });
    });

    it('stays quiet at or below 3x, under $1, and with less than 24 hours of history', () => {
      expect(hourlySpike(snapshot({ previousWeekCost: 168, current: [group('bot', 3, 5)] }))).toBeNull();
      expect(hourlySpike(snapshot({ previousWeekCost: 1.68, current: [group('bot', 0.9, 5)] }))).toBeNull();
      const young = new Date(now.getTime() - 20 * HOUR_MS);
      expect(hourlySpike(snapshot({ firstUsageAt: young, previousWeekCost: 1, current: [group('bot', 50, 5)] }))).toBeNull();
      expect(hourlySpike(snapshot({ firstUsageAt: null, current: [group('bot', 50, 5)] }))).toBeNull();
    });

    it('averages over the hours of history there are (a two-day-old organization)', () => {
      const twoDays = new Date(now.getTime() - HOUR_MS - 48 * HOUR_MS);
      const finding = hourlySpike(snapshot({ firstUsageAt: twoDays, previousWeekCost: 48, current: [group(null, 4, 5)] }));
      expect(finding).toMatchObject({ multiplier: 4, details: { baseline_hours: 48 } });
    });
  });

  describe('runaway_agent', () => {
    it('fires when one agent spent more than half of the daily budget in the hour, naming the worst', () => {
      const finding = runawayAgent(snapshot({ dailyBudget: 10, current: [group('crawler', 6, 40), group('helper', 5.5, 3), group(null, 9, 9)] }));
      expect(finding).toMatchObject({
        anomaly_type: 'runaway_agent',
        current_value: 60,
        threshold_value: 50,
        multiplier: 1.2,
        severity: 'medium',
        details: { agent: 'crawler', cost: 6, daily_budget: 10, agents: [{ agent: 'crawler', share_pct: 60 }, { agent: 'helper', share_pct: 55 }] },
      });
      expect(finding?.message).toBe('Agent "crawler" spent $6.00, 60% of the $10.00 daily budget, in the last hour');
    });

    it('stays quiet at 50 % or below, for requests without an agent, and without a budget', () => {
      expect(runawayAgent(snapshot({ dailyBudget: 10, current: [group('crawler', 5, 40)] }))).toBeNull();
      expect(runawayAgent(snapshot({ dailyBudget: 10, current: [group(null, 9, 40)] }))).toBeNull();
      expect(runawayAgent(snapshot({ dailyBudget: null, current: [group('crawler', 9, 40)] }))).toBeNull();
    });
  });

  describe('model_drift', () => {
    const mixed = (agent: string | null, models: [string, number, number][]): AgentUsage => ({
      agent,
      cost: models.reduce((sum, [, cost]) => sum + cost, 0),
      requests: models.reduce((sum, [, , requests]) => sum + requests, 0),
      completed: models.reduce((sum, [, , requests]) => sum + requests, 0),
      models: models.map(([model, cost, requests]) => ({ model, cost, requests, completed: requests })),
    });

    it('fires when an agent switched to a model over 5x costlier per request than the one it used before', () => {
      const finding = modelDrift(
        snapshot({ current: [group('summarizer', 0.6, 6, 'gpt-4o')], previousDay: [group('summarizer', 0.2, 20, 'gpt-4o-mini')] }),
      );
      expect(finding).toMatchObject({
        anomaly_type: 'model_drift',
        current_value: 0.1,
        threshold_value: 0.05,
        multiplier: 10,
        severity: 'high',
        details: {
          agent: 'summarizer',
          new_models: ['gpt-4o'],
          previous_models: ['gpt-4o-mini'],
          baseline_cost_per_request: 0.01,
          current_requests: 6,
          baseline_requests: 20,
          current_models: [{ model: 'gpt-4o', requests: 6, avg_cost: 0.1 }],
          baseline_models: [{ model: 'gpt-4o-mini', requests: 20, avg_cost: 0.01 }],
        },
      });
      expect(finding?.message).toBe('Agent "summarizer" switched to gpt-4o from gpt-4o-mini: $0.10 per request in the last hour, 10x the $0.01 before');
    });

    it('writes micro-dollar costs per request with their digits in the message, not $0.0000', () => {
      // Short gpt-4o-mini requests at $0.0000002, then gpt-4o at $0.0000015.
      const finding = modelDrift(
        snapshot({ current: [group('summarizer', 0.000009, 6, 'gpt-4o')], previousDay: [group('summarizer', 0.000004, 20, 'gpt-4o-mini')] }),
      );
      expect(finding).toMatchObject({ current_value: 0.0000015, threshold_value: 0.000001, multiplier: 7.5 });
      expect(finding?.message).toBe('Agent "summarizer" switched to gpt-4o from gpt-4o-mini: $0.0000015 per request in the last hour, 7.5x the $0.0000002 before');
    });

    it('stays quiet when the same model gets heavier prompts, however much the cost per request rose', () => {
      // gpt-4o before and now: 10x the cost per request, but no switch of models.
      const current = [group('summarizer', 0.6, 6, 'gpt-4o')];
      const previousDay = [group('summarizer', 0.2, 20, 'gpt-4o')];
      expect(modelDrift(snapshot({ current, previousDay }))).toBeNull();
      // Still mostly gpt-4o, with a few requests on another model: the dominant model did not change.
      const mostlySame = [mixed('summarizer', [['gpt-4o', 0.6, 6], ['o1', 0.4, 2]])];
      expect(modelDrift(snapshot({ current: mostlySame, previousDay }))).toBeNull();
    });

    it('compares the new model with the baseline model, not with the agent’s average of before', () => {
      // Before: mostly gpt-4o-mini at $0.01 with some gpt-4o at $0.10; now all gpt-4o at $0.10.
      // 10x the baseline model although only ~3x the agent's average of before.
      const previousDay = [mixed('writer', [['gpt-4o-mini', 0.3, 30], ['gpt-4o', 1, 10]])];
      const finding = modelDrift(snapshot({ current: [group('writer', 0.6, 6, 'gpt-4o')], previousDay }));
      expect(finding).toMatchObject({ multiplier: 10, details: { new_models: ['gpt-4o'], previous_models: ['gpt-4o-mini'] } });
      // A switch between models of about the same price per request is not a drift.
      const cheapSwitch = [group('writer', 0.09, 6, 'claude-haiku')];
      expect(modelDrift(snapshot({ current: cheapSwitch, previousDay }))).toBeNull();
    });

    it('compares per agent, so a change of mix between agents is not a drift', () => {
      // The cheap agent went quiet: the organization's average rose 10x, no agent switched models.
      const current = [group('premium', 1, 10, 'gpt-4o')];
      const previousDay = [group('premium', 2.4, 24, 'gpt-4o'), group('cheap', 0.01, 240, 'gpt-4o-mini')];
      expect(modelDrift(snapshot({ current, previousDay }))).toBeNull();
    });

    it('stays quiet at or below 5x and with too few requests on either side', () => {
      const baseline = [group('a', 0.2, 20)];
      expect(modelDrift(snapshot({ current: [group('a', 0.3, 6, 'gpt-4o')], previousDay: baseline }))).toBeNull();
      expect(modelDrift(snapshot({ current: [group('a', 0.4, 4, 'gpt-4o')], previousDay: baseline }))).toBeNull();
      expect(modelDrift(snapshot({ current: [group('a', 0.6, 6, 'gpt-4o')], previousDay: [group('a', 0.09, 9)] }))).toBeNull();
    });

    it('finds the dominant models: the busiest that carry more than half of the requests', () => {
      expect(dominantModels(group('a', 1, 10, 'gpt-4o')).map((m) => m.model)).toEqual(['gpt-4o']);
      expect(dominantModels(mixed('a', [['b', 1, 5], ['a', 1, 5], ['c', 1, 1]])).map((m) => m.model)).toEqual(['a', 'b']);
      expect(dominantModels(mixed('a', [['small', 1, 2], ['big', 1, 7], ['mid', 1, 3]])).map((m) => m.model)).toEqual(['big']);
    });
  });

  describe('volume_surge', () => {
    it('fires above 5x the same hour on previous days', () => {
      const finding = volumeSurge(snapshot({ current: [group('a', 1, 80)] }));
      expect(finding).toMatchObject({
        anomaly_type: 'volume_surge',
        current_value: 80,
        threshold_value: 50,
        multiplier: 8,
        severity: 'medium',
        details: { normal_requests: 10, days_compared: 7 },
      });
      expect(finding?.message).toBe('80 requests in the last hour, 8x the normal 10 for this time of day');
    });

    it('stays quiet at or below 5x, under 20 requests, and with fewer than 3 days to compare', () => {
      expect(volumeSurge(snapshot({ current: [group('a', 1, 50)] }))).toBeNull();
      const quietHours = [1, 2, 3].map((daysAgo) => ({ daysAgo, requests: 0 }));
      expect(volumeSurge(snapshot({ sameHourRequests: quietHours, current: [group('a', 1, 19)] }))).toBeNull();
      expect(volumeSurge(snapshot({ sameHourRequests: quietHours, current: [group('a', 1, 20)] }))).toMatchObject({ multiplier: 20 });
      expect(volumeSurge(snapshot({ sameHourRequests: quietHours.slice(0, 2), current: [group('a', 1, 500)] }))).toBeNull();
    });
  });

  it('finds nothing in steady traffic', () => {
    const steady = snapshot({
      previousWeekCost: 168 * 4,
      current: [group('steady', 4, 10)],
      previousDay: [group('steady', 96, 240)],
      sameHourRequests: [1, 2, 3, 4, 5, 6, 7].map((daysAgo) => ({ daysAgo, requests: 10 })),
    });
    expect(evaluateAnomalies(steady)).toEqual([]);
  });

  it('grades severity by how far past the threshold', () => {
    expect([1.1, 2, 2.9, 3, 10].map(severity)).toEqual(['medium', 'high', 'high', 'critical', 'critical']);
  });
});
