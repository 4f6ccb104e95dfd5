import { Inject, Injectable } from '@nestjs/common';
import { OrganizationEntity, OrgId, Repositories } from '@svc/domain';
import { REPOSITORIES } from '@svc/runtime';
import { effectiveBudgets } from '../common/effective-limits';
import { Bucket, buildCostReport, CostReport, Granularity, Period, periodRange } from './cost-report';

interface GroupRow {
  _id: string | null;
  cost: number;
  requests: number;
  avg_latency_ms?: number;
  replays?: number;
}

/** Cost figures from usage records (DECISIONS.md "Usage record"): `cost` of proxied requests. */
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
      usage.aggregateUsage<GroupRow>(orgId, group('$provider', { replays: { $sum: { $cond: [{ $eq: ['$usage_source', 'replay'] }, 1, 0] } } })),
      usage.aggregateUsage<GroupRow>(orgId, group('$agent', { avg_latency_ms: { $avg: '$latency_ms' } })),
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
      byProvider: byProvider.map((row) => ({ key: row._id ?? null, cost: row.cost, requests: row.requests, replays: row.replays ?? 0 })),
      byAgent: byAgent.map((row) => ({ key: row._id ?? null, cost: row.cost, executions: row.requests, avg_latency_ms: Number(row.avg_latency_ms ?? 0) })),
      buckets: buckets.map((row): Bucket => ({ bucket: String(row._id), cost: row.cost, requests: row.requests })),
      monthlyBudget: budgets.monthly_budget,
    });
  }
}
