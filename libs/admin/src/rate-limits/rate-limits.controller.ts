import { Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiProperty } from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '@svc/auth';
import { ChainGovernanceService } from '@svc/governance';
import { AdminQuery } from '../common/admin-query';
import { AdminController, AdminRoute } from '../common/admin-route';

class KeyMinuteCount {
  @ApiProperty()
  key_id!: string;

  @ApiProperty({ type: 'integer' })
  requests_this_minute!: number;
}

/** SPEC.md `GET /rate-limits/status`: `org_id`, `rpm_limit`, `current_minute_count`, `keys[]` (`key_id`, `requests_this_minute`). */
export class RateLimitStatus {
  @ApiProperty()
  org_id!: string;

  @ApiProperty({ type: 'integer', description: 'Requests per minute the policy allows the organization' })
  rpm_limit!: number;

  @ApiProperty({ type: 'integer', description: "The organization's requests this minute" })
  current_minute_count!: number;

  @ApiProperty({ type: () => [KeyMinuteCount], description: 'Keys with requests this minute, busiest first' })
  keys!: KeyMinuteCount[];
}

/** SPEC.md `GET /rate-limits/status`: this minute's counts from the live governance counters. */
@AdminController('rate-limits', 'rate limits')
export class RateLimitsController {
  constructor(private readonly governance: ChainGovernanceService) {}

  @Get('status')
  @AdminRoute('admin:read', 'Requests this minute against the RPM limit, for the organization and each key')
  @ApiOkResponse({ type: RateLimitStatus })
  status(@CurrentPrincipal() principal: Principal, @Query() _query: AdminQuery): Promise<RateLimitStatus> {
    return this.governance.rateLimitStatus(principal.orgId);
  }
}
