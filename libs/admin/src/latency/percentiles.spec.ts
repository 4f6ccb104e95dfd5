import { nearestRank, percentiles, percentilesBy } from './percentiles';

describe('latency percentiles (nearest rank)', () => {
  it('picks observed values: 1..100 gives 50, 95, 99', () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentiles(values)).toEqual({ count: 100, p50_ms: 50, p95_ms: 95, p99_ms: 99, avg_ms: 50.5, max_ms: 100 });
  });

  it('handles small sets and one value', () => {
    expect(nearestRank([10, 20, 30], 50)).toBe(20);
    expect(nearestRank([10, 20, 30], 99)).toBe(30);
    expect(percentiles([7])).toMatchObject({ p50_ms: 7, p95_ms: 7, p99_ms: 7 });
    expect(percentiles([])).toMatchObject({ count: 0, p50_ms: 0 });
  });

  it('groups by provider and model, largest group first', () => {
    const samples = [
      { provider: 'openai', model: 'gpt-4o', latency_ms: 100 },
      { provider: 'openai', model: 'gpt-4o', latency_ms: 300 },
      { provider: 'anthropic', model: 'claude-x', latency_ms: 50 },
    ];
    const rows = percentilesBy(samples, (s: { provider: string; model: string }) => ({ provider: s.provider, model: s.model }));
    expect(rows.map((r) => [r.provider, r.model, r.count, r.p50_ms, r.p99_ms])).toEqual([
      ['openai', 'gpt-4o', 2, 100, 300],
      ['anthropic', 'claude-x', 1, 50, 50],
    ]);
  });
});
