import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

const MAX_MODEL_LABELS = 200;

/**
 * The gateway's Prometheus metrics (served at /metrics) and the in-process figures that
 * /v1/health/detailed reports. `model` is a client-chosen string, so its label values are capped:
 * past MAX_MODEL_LABELS distinct models, new ones are counted as `other`.
 */
export class GatewayMetrics {
  readonly registry = new Registry();
  private readonly models = new Set<string>();
  private readonly requests: Counter<'provider' | 'model' | 'status'>;
  private readonly latency: Histogram<'provider' | 'model'>;
  private readonly blocks: Counter<'reason'>;
  private readonly cost: Counter<'provider'>;
  private readonly breakerChanges: Counter<'provider' | 'state'>;
  private total = 0;
  private errors = 0;

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'svc_gateway_' });
    this.requests = new Counter({
      name: 'svc_gateway_requests_total',
      help: 'Proxied requests by provider, model and HTTP status',
      labelNames: ['provider', 'model', 'status'],
      registers: [this.registry],
    });
    this.latency = new Histogram({
      name: 'svc_gateway_request_duration_seconds',
      help: 'End-to-end request latency (to the last byte) by provider and model',
      labelNames: ['provider', 'model'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
      registers: [this.registry],
    });
    this.blocks = new Counter({
      name: 'svc_gateway_governance_blocks_total',
      help: 'Requests refused by the governance chain, by reason (error code)',
      labelNames: ['reason'],
      registers: [this.registry],
    });
    this.cost = new Counter({
      name: 'svc_gateway_cost_usd_total',
      help: 'Recorded cost in USD by provider',
      labelNames: ['provider'],
      registers: [this.registry],
    });
    this.breakerChanges = new Counter({
      name: 'svc_gateway_circuit_breaker_state_changes_total',
      help: 'Circuit-breaker state changes by provider and new state',
      labelNames: ['provider', 'state'],
      registers: [this.registry],
    });
  }

  observeRequest(provider: string, model: string, status: number, seconds: number): void {
    const modelLabel = this.modelLabel(model);
    this.requests.inc({ provider, model: modelLabel, status: String(status) });
    this.latency.observe({ provider, model: modelLabel }, seconds);
    this.total += 1;
    if (status >= 500) this.errors += 1;
  }

  observeBlock(reason: string): void {
    this.blocks.inc({ reason });
  }

  observeCost(provider: string, usd: number): void {
    if (usd > 0) this.cost.inc({ provider }, usd);
  }

  observeBreakerChange(provider: string, state: string): void {
    this.breakerChanges.inc({ provider, state });
  }

  /**
   * Figures for /v1/health/detailed. Percentiles are interpolated from the latency histogram's
   * buckets (as Prometheus' histogram_quantile does), so requests pay for no extra structure.
   */
  async snapshot(): Promise<{ total_requests: number; error_rate: number; p50_latency_ms: number; p95_latency_ms: number; p99_latency_ms: number }> {
    const { values } = await this.latency.get();
    const buckets = new Map<number, number>();
    for (const value of values) {
      if (value.metricName !== 'svc_gateway_request_duration_seconds_bucket') continue;
      const bound = (value.labels as Record<string, string | number | undefined>).le;
      const le = bound === '+Inf' ? Infinity : Number(bound);
      buckets.set(le, (buckets.get(le) ?? 0) + value.value);
    }
    const sorted = [...buckets.entries()].sort((a, b) => a[0] - b[0]);
    const quantileMs = (q: number) => Math.round(histogramQuantile(sorted, q) * 1000 * 100) / 100;
    return {
      total_requests: this.total,
      error_rate: this.total === 0 ? 0 : this.errors / this.total,
      p50_latency_ms: quantileMs(0.5),
      p95_latency_ms: quantileMs(0.95),
      p99_latency_ms: quantileMs(0.99),
    };
  }

  exposition(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  private modelLabel(model: string): string {
    if (this.models.has(model)) return model;
    if (this.models.size >= MAX_MODEL_LABELS || model.length > 100) return 'other';
    this.models.add(model);
    return model;
  }
}

/** Linear interpolation inside the bucket holding the q-quantile; cumulative `[le, count]` pairs in order. */
function histogramQuantile(buckets: [number, number][], q: number): number {
  const total = buckets.at(-1)?.[1] ?? 0;
  if (total === 0) return 0;
  const rank = q * total;
  let previousLe = 0;
  let previousCount = 0;
  for (const [le, count] of buckets) {
    if (count >= rank) {
      if (le === Infinity) return previousLe;
      const inBucket = count - previousCount;
      return inBucket === 0 ? le : previousLe + ((le - previousLe) * (rank - previousCount)) / inBucket;
    }
    previousLe = le;
    previousCount = count;
  }
  return previousLe;
}
