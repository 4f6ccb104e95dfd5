import { Inject, Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { Repositories } from '@svc/domain';
import { REPOSITORIES } from '@svc/runtime';
import { lastDays } from '../usage/usage.service';
import { LatencyReport } from './dto/latency.dto';
import { percentiles, percentilesBy } from './percentiles';

/** Most samples read per report (the newest). */
export const MAX_LATENCY_SAMPLES = 50_000;

/**
 * Percentiles of the recorded end-to-end latency (`latency_ms`) of the provider calls: the requests a
 * provider answered (usage-populations.ts), not the refusals and idempotent replays answered at once.
 */
@Injectable()
export class LatencyService {
  constructor(@Inject(REPOSITORIES) private readonly repositories: Repositories) {}

  async report(principal: Principal, days: number): Promise<LatencyReport> {
    const range = lastDays(days);
    const samples = await this.repositories.usage.latencySamples(principal.orgId, range, MAX_LATENCY_SAMPLES);
    return {
      days,
      from: range.from.toISOString(),
      to: range.to.toISOString(),
      method: 'nearest_rank',
      overall: percentiles(samples.map((s) => s.latency_ms)),
      by_provider: percentilesBy(samples, (s: { provider: string }) => ({ provider: s.provider })),
      by_model: percentilesBy(samples, (s: { provider: string; model: string }) => ({ provider: s.provider, model: s.model })),
    };
  }
}
