import { BreakerOptions, BreakerRecord, BreakerState, DEFAULT_BREAKER_OPTIONS, ProviderBreaker } from './provider-breaker';

export type OverallHealth = 'healthy' | 'degraded' | 'unhealthy';

/**
 * One breaker per built-in provider, created on first use. `known` providers (the built-in registry)
 * are reported as closed before their first call, so health judges all providers, not only the used
 * ones. An organization's own provider target has a breaker of its own per organization (two
 * organizations may both name a target `lab`: one's failing server must not open the other's), and
 * it is not part of the public health views (it is that organization's business).
 */
export class BreakerRegistry {
  private readonly breakers = new Map<string, ProviderBreaker>();
  /** `orgId/providerId` → the breaker of an organization's provider target. */
  private readonly targets = new Map<string, ProviderBreaker>();

  constructor(
    private readonly options: BreakerOptions = DEFAULT_BREAKER_OPTIONS,
    private readonly onStateChange?: (provider: string, state: BreakerState) => void,
    private readonly known: readonly string[] = [],
  ) {}

  for(provider: string): ProviderBreaker {
    let breaker = this.breakers.get(provider);
    if (!breaker) {
      breaker = new ProviderBreaker(provider, this.options, this.onStateChange);
      this.breakers.set(provider, breaker);
    }
    return breaker;
  }

  /** The breaker of an organization's provider target. */
  forTarget(orgId: string, provider: string): ProviderBreaker {
    const key = `${orgId}/${provider}`;
    let breaker = this.targets.get(key);
    if (!breaker) {
      breaker = new ProviderBreaker(provider, this.options, this.onStateChange);
      this.targets.set(key, breaker);
    }
    return breaker;
  }

  /** The built-in providers' breakers (the health endpoints: no organization's target is listed). */
  records(): BreakerRecord[] {
    const records = [...this.breakers.values()].map((breaker) => breaker.record());
    for (const provider of this.known) if (!this.breakers.has(provider)) records.push(closedRecord(provider, this.options));
    return records;
  }

  /** SPEC.md: healthy when all are closed, degraded when some are open or half-open, unhealthy when all are open. */
  overall(): OverallHealth {
    const states = this.records().map((record) => record.state);
    if (states.length === 0 || states.every((state) => state === 'closed')) return 'healthy';
    if (states.every((state) => state === 'open')) return 'unhealthy';
    return 'degraded';
  }

  shutdown(): void {
    for (const breaker of this.breakers.values()) breaker.shutdown();
    for (const breaker of this.targets.values()) breaker.shutdown();
  }
}

/** The record of a provider that has not been called yet: closed, no failures. */
function closedRecord(provider: string, options: BreakerOptions): BreakerRecord {
  return {
    provider,
    state: 'closed',
    failure_count: 0,
    failure_threshold: options.failureThreshold,
    failure_window_seconds: options.failureWindowMs / 1000,
    recovery_timeout_seconds: options.recoveryTimeoutMs / 1000,
    last_failure_time: null,
    last_success_time: null,
    retry_after_seconds: null,
  };
}
