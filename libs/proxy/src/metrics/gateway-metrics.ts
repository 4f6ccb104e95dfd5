import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { BreakerState } from '../breaker/provider-breaker';
import type { ProviderDefinition } from '../providers';
import { MetricLabels } from './metric-labels';

/**
 * Why a usage record was dropped: `refused`, the document store refused it (dead-lettered: logged
 * whole at error level); `buffer_full`, the recorder's buffer was full (the store down too long).
 */
export type UsageDropReason = 'refused' | 'buffer_full';
const USAGE_DROP_REASONS: readonly UsageDropReason[] = ['refused', 'buffer_full'];

/** prom-client default gauges whose names end in `_total`, removed from the exposition. */
const GAUGES_NAMED_AS_COUNTERS = ['svc_gateway_nodejs_active_resources_total', 'svc_gateway_nodejs_active_handles_total', 'svc_gateway_nodejs_active_requests_total'];

/**
 * The gateway's Prometheus metrics (served at /metrics, without authentication) and the in-process
 * figures that /v1/health/detailed reports. Every label value goes through MetricLabels, so the
 * series stay a bounded set that names no tenant: no client-chosen model and no organization's
 * provider target appears.
 */
export class GatewayMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'provider' | 'model' | 'status'>;
  private readonly latency: Histogram<'provider' | 'model'>;
  private readonly blocks: Counter<'reason'>;
  private readonly cost: Counter<'provider'>;
  private readonly unpriced: Counter<'provider' | 'model'>;
  private readonly breakerChanges: Counter<'provider' | 'state'>;
  private readonly usageDropped: Counter<'reason'>;
  private readonly labels = new MetricLabels();
  private total = 0;
  private errors = 0;

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'svc_gateway_' });
    // prom-client's sums of the per-type gauges are gauges named `_total`, a suffix Prometheus keeps
    // for counters (promtool: "non-counter metrics should not have _total suffix"). Dropped: each is
    // `sum()` of its per-type family (`svc_gateway_nodejs_active_handles` ...), which stays.
    for (const name of GAUGES_NAMED_AS_COUNTERS) this.registry.removeSingleMetric(name);
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
    this.unpriced = new Counter({
      name: 'svc_gateway_unpriced_model_requests_total',
      help: 'Charged requests whose model the price table does not know, priced at DEFAULT_MODEL_PRICE, by provider and model',
      labelNames: ['provider', 'model'],
      registers: [this.registry],
    });
    this.breakerChanges = new Counter({
      name: 'svc_gateway_circuit_breaker_state_changes_total',
      help: 'Circuit-breaker state changes by provider and new state',
      labelNames: ['provider', 'state'],
      registers: [this.registry],
    });
    this.usageDropped = new Counter({
      name: 'svc_gateway_usage_records_dropped_total',
      help: 'Usage records the gateway could not store and dropped, by reason (refused by the store, buffer full)',
      labelNames: ['reason'],
      registers: [this.registry],
    });
    // Both series from the start (at 0), so an alert on their increase sees the first drop.
    for (const reason of USAGE_DROP_REASONS) this.usageDropped.inc({ reason }, 0);
  }

  /** One finished proxy request; `provider` undefined when it ended before one was chosen. */
  observeRequest(provider: ProviderDefinition | undefined, model: string | undefined, status: number, seconds: number): void {
    const providerLabel = this.labels.provider(provider);
    const modelLabel = this.labels.model(providerLabel, model);
    this.requests.inc({ provider: providerLabel, model: modelLabel, status: this.labels.status(status) });
    this.latency.observe({ provider: providerLabel, model: modelLabel }, seconds);
    this.total += 1;
    if (status >= 500) this.errors += 1;
  }

  /** A governance refusal by its error code (`rate_limit`). */
  observeBlock(reason: string): void {
    this.blocks.inc({ reason: this.labels.reason(reason) });
  }

  observeCost(provider: ProviderDefinition, usd: number): void {
    if (usd > 0) this.cost.inc({ provider: this.labels.provider(provider) }, usd);
  }

  /**
   * A charged request whose model the price table does not know (its cost is at DEFAULT_MODEL_PRICE).
   * The model label is bounded like the request counter's: a model the price table does not know
   * keeps its name only when the provider's registry lists it, else it is `other`.
   */
  observeUnpriced(provider: ProviderDefinition | undefined, model: string | undefined): void {
    const providerLabel = this.labels.provider(provider);
    this.unpriced.inc({ provider: providerLabel, model: this.labels.model(providerLabel, model) });
  }

  /** A breaker's new state; breakers are keyed by provider id, an organization's target id included. */
  observeBreakerChange(providerId: string, state: BreakerState): void {
    this.breakerChanges.inc({ provider: this.labels.providerId(providerId), state });
  }

  /** A usage record dropped instead of stored. */
  observeUsageDropped(reason: UsageDropReason): void {
    this.usageDropped.inc({ reason });
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
