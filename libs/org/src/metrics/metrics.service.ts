import { Inject, Injectable } from '@nestjs/common';
import { OrganizationEntity, OrgId, PROVIDER_CALL_SUMS, Repositories } from '@svc/domain';
import { REPOSITORIES } from '@svc/runtime';
import { effectiveBudgets } from '../common/effective-limits';
import { Bucket, buildCostReport, CostReport, Granularity, Period, periodRange } from './cost-report';

interface GroupRow {
  _id: string | null;
  cost: number;
  requests: number;
  /** Provider calls among the requests, and the sum of their `latency_ms` (PROVIDER_CALL_SUMS). */
  calls?: number;
  call_latency_ms?: number;
}

/**
 * Cost figures from usage records (DECISIONS.md "Usage record"): `cost` of proxied requests.
 * Per-call figures (`avg_cost_per_request`, `avg_latency_ms`) are taken over the provider calls,
 * counted in the same pass of the store as the requests (usage-populations.ts).
 */
@Injectable()
export class MetricsService {
  constructor(@Inject(REPOSITORIES) private readonly repositories: Repositories) {}

  async costOptimization(
    organization: Pick<OrganizationEntity, '_id' | 'plan'>,
    orgId: OrgId,
    period: Period,
    granularity: Granularity,
    now = new Date(),
  ): Promise<CostReport> {
    const { from, to, mid } = periodRange(period, now);
    const proxied = { created_at: { $gte: from, $lt: new Date(to.getTime() + 1) }, blocked_by: null };
    const group = (key: unknown, extra: Record<string, unknown> = {}) => [
      { $match: proxied },
      { $group: { _id: key, cost: { $sum: '$cost' }, requests: { $sum: 1 }, ...extra } },
      { $sort: { cost: -1, _id: 1 } },
    ];
    const format = granularity === 'hourly' ? '%Y-%m-%dT%H' : '%Y-%m-%d';
    const usage = this.repositories.usage;
    const [byProvider, byAgent, buckets, first, second, budgets] = await Promise.all([
      usage.aggregateUsage<GroupRow>(orgId, group('$provider', { calls: PROVIDER_CALL_SUMS.calls })),
      usage.aggregateUsage<GroupRow>(orgId, group('$agent', PROVIDER_CALL_SUMS)),
      usage.aggregateUsage<GroupRow>(orgId, group({ $dateToString: { format, date: '$created_at' } })),
      usage.totals(orgId, { from, to: mid }),
      usage.totals(orgId, { from: mid, to: new Date(to.getTime() + 1) }),
      effectiveBudgets(this.repositories, orgId, organization.plan),
    ]);
    return buildCostReport({
      period,
      granularity,
      now,
      totalCost: first.cost + second.cost,
      halves: [first.cost, second.cost],
      byProvider: byProvider.map((row) => ({ key: row._id ?? null, cost: row.cost, requests: row.requests, calls: row.calls ?? 0 })),
      byAgent: byAgent.map((row) => ({ key: row._id ?? null, cost: row.cost, executions: row.requests, calls: row.calls ?? 0, call_latency_ms: row.call_latency_ms ?? 0 })),
      buckets: buckets.map((row): Bucket => ({ bucket: String(row._id), cost: row.cost, requests: row.requests })),
      monthlyBudget: budgets.monthly_budget,
    });
  }
}
