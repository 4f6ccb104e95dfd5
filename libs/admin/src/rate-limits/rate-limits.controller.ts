import { Get } from '@nestjs/common';
import { CurrentPrincipal, Principal } from '@svc/auth';
import { ChainGovernanceService } from '@svc/governance';
import { AdminController, AdminRoute } from '../common/admin-route';

export interface RateLimitStatus {
  org_id: string;
  rpm_limit: number;
  current_minute_count: number;
  keys: { key_id: string; requests_this_minute: number }[];
}

/** SPEC.md `GET /rate-limits/status`: this minute's counts from the live governance counters. */
@AdminController('rate-limits', 'rate limits')
export class RateLimitsController {
  constructor(private readonly governance: ChainGovernanceService) {}

  @Get('status')
  @AdminRoute('admin:read', 'Requests this minute against the RPM limit, for the organization and each key')
  status(@CurrentPrincipal() principal: Principal): Promise<RateLimitStatus> {
    return this.governance.rateLimitStatus(principal.orgId);
  }
}
