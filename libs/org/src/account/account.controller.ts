import { Controller, Get, Inject, Query, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { asOrgId, Repositories, roundUsd } from '@svc/domain';
import { SERVICE_VERSION } from '@svc/platform';
import { REPOSITORIES } from '@svc/runtime';
import { OrgAuthGuard } from '../auth/org-auth.guard';
import { Caller, OrgPrincipal } from '../auth/org-principal';
import { effectiveBudgets } from '../common/effective-limits';
import { NoQueryDto } from '../common/no-query';
import { OrgRoute } from '../common/org-access';
import { orgErrors, round2 } from '../common/org-errors';
import { DailyCostDto, HealthDto, ProfileDto } from './dto/account.dto';

@ApiTags('account')
@Controller('api/v1')
@UseGuards(OrgAuthGuard)
export class AccountController {
  constructor(@Inject(REPOSITORIES) private readonly repositories: Repositories) {}

  @Get('health')
  @OrgRoute({
    summary: 'Service health, with the organization\'s spend today',
    level: 'optional',
    description:
      'Always 200 while the service runs. With credentials, `daily_cost` is the caller\'s organization\'s spend since 00:00 UTC from usage records: ' +
      '`total`, `budget_limit` (the policy\'s daily budget or the tier default), `utilization` (percent), and the costliest agent. ' +
      'Without credentials `daily_cost` is null; invalid credentials are refused (401).',
  })
  @ApiOkResponse({ type: HealthDto })
  async health(@Caller() caller: OrgPrincipal | undefined): Promise<HealthDto> {
    return {
      status: 'ok',
      version: SERVICE_VERSION,
      uptime_seconds: Math.round(process.uptime() * 1000) / 1000,
      timestamp: new Date().toISOString(),
      daily_cost: caller ? await this.dailyCost(caller) : null,
    };
  }

  @Get('user/profile')
  @OrgRoute({ summary: 'The caller: user profile, or the API key\'s identity', level: 'read', scopes: [] })
  @ApiOkResponse({ type: ProfileDto, description: 'For a user: id, email, name, role, organization, scopes. For an API key: its id, name and scopes.' })
  async profile(@Caller() caller: OrgPrincipal, @Query() _query: NoQueryDto): Promise<ProfileDto> {
    const organization = {
      id: caller.organization._id,
      name: caller.organization.name,
      plan: caller.organization.plan,
      subscription_status: caller.organization.subscription_status,
    };
    if (caller.kind !== 'dashboard' || !caller.userId) {
      return { type: 'api_key', key_id: caller.keyId, name: caller.keyName, org_id: caller.orgId, organization, scopes: caller.scopes, team_id: caller.teamId };
    }
    const user = await this.repositories.users.findById(caller.orgId, caller.userId);
    if (!user) throw orgErrors.unauthorized('The user of this token no longer exists');
    return {
      type: 'user',
      id: user._id,
      email: user.email,
      name: user.name,
      role: user.role,
      org_id: user.org_id,
      organization,
      scopes: caller.scopes,
      created_at: user.created_at.toISOString(),
      last_login_at: user.last_login_at ? user.last_login_at.toISOString() : null,
    };
  }

  private async dailyCost(caller: OrgPrincipal): Promise<DailyCostDto> {
    const orgId = asOrgId(caller.orgId);
    const now = new Date();
    const range = { from: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())) };
    const [totals, agents, budgets] = await Promise.all([
      this.repositories.usage.totals(orgId, range),
      this.repositories.usage.totalsByField(orgId, range, 'agent'),
      effectiveBudgets(this.repositories, orgId, caller.organization.plan),
    ]);
    const top = agents.find((row) => row.cost > 0) ?? null;
    return {
      total: roundUsd(totals.cost),
      budget_limit: budgets.daily_budget,
      utilization: budgets.daily_budget > 0 ? round2((totals.cost / budgets.daily_budget) * 100) : 0,
      top_agent: top ? (top.agent ?? 'unattributed') : null,
      top_agent_cost: top ? roundUsd(top.cost) : 0,
    };
  }
}
