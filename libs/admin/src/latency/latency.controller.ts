import { Get, Inject, Query } from '@nestjs/common';
import { CurrentPrincipal, Principal } from '@svc/auth';
import { Repositories } from '@svc/domain';
import { REPOSITORIES } from '@svc/runtime';
import { AdminController, AdminRoute } from '../common/admin-route';
import { UsageDaysQuery } from '../usage/dto/usage.dto';
import { DEFAULT_USAGE_DAYS, lastDays } from '../usage/usage.service';
import { LatencyPercentiles, percentiles, percentilesBy } from './percentiles';

/** Most samples read per report (the newest). */
const MAX_SAMPLES = 50_000;

export interface LatencyReport {
  days: number;
  from: string;
  to: string;
  method: 'nearest_rank';
  overall: LatencyPercentiles;
  by_provider: ({ provider: string } & LatencyPercentiles)[];
  by_model: ({ provider: string; model: string } & LatencyPercentiles)[];
}

/** SPEC.md `GET /latency`: percentiles of the end-to-end latency of served (not refused) requests. */
@AdminController('latency', 'usage')
export class LatencyController {
  constructor(@Inject(REPOSITORIES) private readonly repositories: Repositories) {}

  @Get()
  @AdminRoute('admin:read', 'p50, p95 and p99 latency by provider and model', '`days` 1–90 (default 7). Recorded `latency_ms` of requests that were not refused, nearest-rank percentiles.')
  async latency(@CurrentPrincipal() principal: Principal, @Query() query: UsageDaysQuery): Promise<LatencyReport> {
    const days = query.days ?? DEFAULT_USAGE_DAYS;
    const range = lastDays(days);
    const samples = await this.repositories.usage.latencySamples(principal.orgId, range, MAX_SAMPLES);
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
