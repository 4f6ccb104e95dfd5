import { BreakerOptions, BreakerRecord, BreakerState, DEFAULT_BREAKER_OPTIONS, ProviderBreaker } from './provider-breaker';

export type OverallHealth = 'healthy' | 'degraded' | 'unhealthy';

/** One breaker per provider, created on first use. */
export class BreakerRegistry {
  private readonly breakers = new Map<string, ProviderBreaker>();

  constructor(
    private readonly options: BreakerOptions = DEFAULT_BREAKER_OPTIONS,
    private readonly onStateChange?: (provider: string, state: BreakerState) => void,
  ) {}

  for(provider: string): ProviderBreaker {
    let breaker = this.breakers.get(provider);
    if (!breaker) {
      breaker = new ProviderBreaker(provider, this.options, this.onStateChange);
      this.breakers.set(provider, breaker);
    }
    return breaker;
  }

  records(): BreakerRecord[] {
    return [...this.breakers.values()].map((breaker) => breaker.record());
  }

  /** SPEC.md: healthy when all are closed, degraded when some are open or half-open, unhealthy when all are open. */
  overall(): OverallHealth {
    const states = [...this.breakers.values()].map((breaker) => breaker.state);
    if (states.length === 0 || states.every((state) => state === 'closed')) return 'healthy';
    if (states.every((state) => state === 'open')) return 'unhealthy';
    return 'degraded';
  }

  shutdown(): void {
    for (const breaker of this.breakers.values()) breaker.shutdown();
  }
}
