import { buildCostReport, seriesKeys, trendOf } from './cost-report';

describe('cost report', () => {
  const now = new Date('2030-03-13T10:30:00Z'); // a Wednesday

  it('covers the period with hourly, daily and weekly (Monday) keys', () => {
    const from = new Date('2030-03-12T10:30:00Z');
    const hourly = seriesKeys(from, now, 'hourly');
    expect(hourly).toHaveLength(25);
    expect(hourly[0]).toBe('2030-03-12T10:00:00Z');
    expect(hourly.at(-1)).toBe('2030-03-13T10:00:00Z');
    expect(seriesKeys(new Date('2030-03-06T10:30:00Z'), now, 'daily')).toEqual([
      '2030-03-06', '2030-03-07', '2030-03-08', '2030-03-09', '2030-03-10', '2030-03-11', '2030-03-12', '2030-03-13',
    ]);
    expect(seriesKeys(new Date('2030-02-27T00:00:00Z'), now, 'weekly')).toEqual(['2030-02-25', '2030-03-04', '2030-03-11']);
  });

  it('calls a change of more than 10 % between the halves a trend', () => {
    expect(trendOf(10, 12)).toBe('increasing');
    expect(trendOf(10, 10.5)).toBe('stable');
    expect(trendOf(10, 8)).toBe('decreasing');
    expect(trendOf(0, 0)).toBe('stable');
    expect(trendOf(0, 1)).toBe('increasing');
  });

  it('builds totals, groups, a zero-filled series and projections', () => {
    const report = buildCostReport({
      period: '7d',
      granularity: 'weekly',
      now,
      totalCost: 0.7,
      halves: [0.2, 0.5],
      byProvider: [{ key: 'openai', cost: 0.6, requests: 3, calls: 3 }, { key: null, cost: 0.1, requests: 1, calls: 1 }],
      byAgent: [{ key: 'bot', cost: 0.7, executions: 4, calls: 4, call_latency_ms: 493.824 }],
      buckets: [
        { bucket: '2030-03-08', cost: 0.2, requests: 1 },
        { bucket: '2030-03-11', cost: 0.3, requests: 2 },
        { bucket: '2030-03-13', cost: 0.2, requests: 1 },
      ],
      monthlyBudget: 30,
    });
    expect(report.total_cost).toBe(0.7);
    expect(report.by_provider).toEqual({
      openai: { cost: 0.6, requests: 3, avg_cost_per_request: 0.2 },
      unknown: { cost: 0.1, requests: 1, avg_cost_per_request: 0.1 },
    });
    expect(report.by_agent).toEqual({ bot: { cost: 0.7, executions: 4, avg_latency_ms: 123.46 } });
    expect(report.time_series).toEqual([
      { date: '2030-03-04', cost: 0.2, requests: 1 },
      { date: '2030-03-11', cost: 0.5, requests: 3 },
    ]);
    expect(report.projections).toEqual({ monthly_estimate: 3, trend: 'increasing', budget_utilization: 10 });
  });

  it('shows each grouping in whole micro-dollars adding up to total_cost, each row within a micro-dollar of its sum', () => {
    const half = 0.0000005;
    const report = buildCostReport({
      period: '24h',
      granularity: 'hourly',
      now,
      totalCost: 3 * half,
      halves: [0, 3 * half],
      byProvider: ['openai', 'mistral', 'groq'].map((key) => ({ key, cost: half, requests: 1, calls: 1 })),
      byAgent: ['a', 'b', 'c'].map((key) => ({ key, cost: half, executions: 1, calls: 1, call_latency_ms: 10 })),
      buckets: [
        { bucket: '2030-03-13T08', cost: half, requests: 1 },
        { bucket: '2030-03-13T09', cost: half, requests: 1 },
        { bucket: '2030-03-13T10', cost: half, requests: 1 },
      ],
      monthlyBudget: 0,
    });
    const micros = (costs: number[]) => costs.reduce((sum, cost) => sum + Math.round(cost * 1e6), 0);
    expect(report.total_cost).toBe(0.000002);
    expect(micros(Object.values(report.by_provider).map((row) => row.cost))).toBe(2);
    expect(micros(Object.values(report.by_agent).map((row) => row.cost))).toBe(2);
    expect(micros(report.time_series.map((point) => point.cost))).toBe(2);
    // Costliest first: the rows given the rounded-up micro-dollars lead.
    expect(Object.values(report.by_provider).map((row) => row.cost)).toEqual([0.000001, 0.000001, 0]);
  });

  it('counts every proxied request, but averages cost and latency over the provider calls', () => {
    const report = buildCostReport({
      period: '24h',
      granularity: 'daily',
      now,
      totalCost: 0.6,
      halves: [0, 0.6],
      // 5 requests named openai for 0.6 USD: 3 provider calls; 2 idempotent replays or refusals before governance (cost 0).
      byProvider: [{ key: 'openai', cost: 0.6, requests: 5, calls: 3 }, { key: 'mistral', cost: 0, requests: 1, calls: 0 }],
      // 4 executions of which 2 provider calls of 300 and 500 ms; the other 2 answered at once.
      byAgent: [{ key: 'bot', cost: 0.6, executions: 4, calls: 2, call_latency_ms: 800 }, { key: null, cost: 0, executions: 2, calls: 0, call_latency_ms: 0 }],
      buckets: [],
      monthlyBudget: 0,
    });
    expect(report.by_provider).toEqual({
      openai: { cost: 0.6, requests: 5, avg_cost_per_request: 0.2 },
      mistral: { cost: 0, requests: 1, avg_cost_per_request: 0 },
    });
    expect(report.by_agent).toEqual({
      bot: { cost: 0.6, executions: 4, avg_latency_ms: 400 },
      unattributed: { cost: 0, executions: 2, avg_latency_ms: 0 },
    });
  });
});
