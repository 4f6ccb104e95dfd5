/** p50, p95 and p99 of a set of latencies, nearest-rank method (each is an observed value). */
export interface LatencyPercentiles {
  count: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  avg_ms: number;
  max_ms: number;
}

/** Nearest rank: the smallest value with at least p% of the values at or below it. `sorted` ascending, non-empty. */
export function nearestRank(sorted: readonly number[], p: number): number {
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1];
}

const round = (value: number) => Math.round(value * 100) / 100;

export function percentiles(values: readonly number[]): LatencyPercentiles {
  if (values.length === 0) return { count: 0, p50_ms: 0, p95_ms: 0, p99_ms: 0, avg_ms: 0, max_ms: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  return {
    count: sorted.length,
    p50_ms: round(nearestRank(sorted, 50)),
    p95_ms: round(nearestRank(sorted, 95)),
    p99_ms: round(nearestRank(sorted, 99)),
    avg_ms: round(sorted.reduce((sum, v) => sum + v, 0) / sorted.length),
    max_ms: round(sorted[sorted.length - 1]),
  };
}

/** Percentiles per group, largest groups first. */
export function percentilesBy<K extends Record<string, string>>(
  samples: readonly { latency_ms: number }[],
  keyOf: (sample: never) => K,
): (K & LatencyPercentiles)[] {
  const groups = new Map<string, { key: K; values: number[] }>();
  for (const sample of samples) {
    const key = keyOf(sample as never);
    const id = JSON.stringify(key);
    let group = groups.get(id);
    if (!group) groups.set(id, (group = { key, values: [] }));
    group.values.push(sample.latency_ms);
  }
  return [...groups.entries()]
    .sort(([a, ga], [b, gb]) => gb.values.length - ga.values.length || a.localeCompare(b))
    .map(([, { key, values }]) => ({ ...key, ...percentiles(values) }));
}
