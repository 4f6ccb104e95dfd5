import { Get, Query } from '@nestjs/common';
import { ApiOkResponse } from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '@svc/auth';
import { AdminController, AdminRoute } from '../common/admin-route';
import { UsageDaysQuery } from '../usage/dto/usage.dto';
import { DEFAULT_USAGE_DAYS } from '../usage/usage.service';
import { LatencyReport } from './dto/latency.dto';
import { LatencyService } from './latency.service';

/** SPEC.md `GET /latency`: percentiles of the end-to-end latency of the provider calls. */
@AdminController('latency', 'usage')
export class LatencyController {
  constructor(private readonly reports: LatencyService) {}

  @Get()
  @AdminRoute(
    'admin:read',
    'p50, p95 and p99 latency by provider and model',
    '`days` 1–90 (default 7). Recorded `latency_ms` of the provider calls (requests a provider answered: `upstream_latency_ms` set; ' +
      "not refusals, idempotent replays or failures before the provider's headers), the newest 50,000, nearest-rank percentiles.",
  )
  @ApiOkResponse({ type: LatencyReport })
  latency(@CurrentPrincipal() principal: Principal, @Query() query: UsageDaysQuery): Promise<LatencyReport> {
    return this.reports.report(principal, query.days ?? DEFAULT_USAGE_DAYS);
  }
}
