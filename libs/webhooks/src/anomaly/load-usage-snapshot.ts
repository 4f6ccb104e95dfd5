import { OrgId, policyOverrides, Repositories, UsageRecordEntity } from '@svc/domain';
import { effectivePolicy, PolicyOverrides } from '@svc/governance';
import { DAY_MS, foldByAgent, HOUR_MS, UsageSnapshot } from './usage-snapshot';

/** How far back usage is read: the week of baselines, the current hour and a margin. */
const HISTORY_LOOKBACK_MS = 8 * DAY_MS;
const SAME_HOUR_DAYS = 7;

interface GroupRow {
  _id: { agent?: string | null; model?: string | null };
  cost: number;
  requests: number;
  completed: number;
}

interface FacetResult {
  first: { first: Date | string }[];
  current: GroupRow[];
  previousDay: GroupRow[];
  week: { cost: number }[];
  [sameHourDay: `day${number}`]: { requests: number }[];
}

const BY_AGENT_AND_MODEL = {
  $group: {
    _id: { agent: '$agent', model: '$model' },
    cost: { $sum: '$cost' },
    requests: { $sum: 1 },
    completed: { $sum: { $cond: [{ $eq: [{ $ifNull: ['$blocked_by', null] }, null] }, 1, 0] } },
  },
};

const between = (from: number, to: number) => ({ $match: { created_at: { $gte: new Date(from), $lt: new Date(to) } } });

/** Most records the embedded store's path reads per organization (its whole data set is in memory anyway). */
const EMBEDDED_RECORD_LIMIT = 200_000;

/**
 * Reads what the anomaly rules need about one organization at `now`. On MongoDB: one aggregation
 * over its last 8 days of usage (served by the `{org_id, created_at}` index). On the embedded
 * store, whose aggregations run synchronously over every stored document, the organization's
 * records are read with a plain query and folded here, which keeps the event loop free.
 */
export function loadUsageSnapshot(repos: Repositories, orgId: OrgId, now: Date): Promise<UsageSnapshot> {
  return repos.store.kind === 'embedded' ? snapshotFromRecords(repos, orgId, now) : snapshotByAggregation(repos, orgId, now);
}

/** The snapshot from one `$facet` aggregation (MongoDB). */
export async function snapshotByAggregation(repos: Repositories, orgId: OrgId, now: Date): Promise<UsageSnapshot> {
  const t = now.getTime();
  const end = t + 1;
  const windowStart = t - HOUR_MS;
  const sameHour: Record<string, unknown[]> = {};
  for (let day = 1; day <= SAME_HOUR_DAYS; day += 1) {
    sameHour[`day${day}`] = [between(t - day * DAY_MS - HOUR_MS, t - day * DAY_MS + 1), { $group: { _id: null, requests: { $sum: 1 } } }];
  }
  const [facets] = await repos.usage.aggregateUsage<FacetResult>(orgId, [
    between(t - HISTORY_LOOKBACK_MS, end),
    {
      $facet: {
        first: [{ $group: { _id: null, first: { $min: '$created_at' } } }],
        current: [between(windowStart, end), BY_AGENT_AND_MODEL],
        previousDay: [between(windowStart - DAY_MS, windowStart), BY_AGENT_AND_MODEL],
        week: [between(windowStart - 7 * DAY_MS, windowStart), { $group: { _id: null, cost: { $sum: '$cost' } } }],
        ...sameHour,
      },
    },
  ]);
  const firstValue = facets?.first[0]?.first;
  const firstUsageAt = firstValue === undefined ? null : new Date(firstValue);
  return complete(repos, orgId, now, {
    firstUsageAt,
    current: rows(facets?.current),
    previousDay: rows(facets?.previousDay),
    previousWeekCost: Number(facets?.week[0]?.cost ?? 0),
    sameHour: (day) => Number(facets?.[`day${day}`]?.[0]?.requests ?? 0),
  });
}

/**
 * The same snapshot from the organization's records, folded in memory (embedded store). Read
 * newest first, so past `limit` records it is the oldest of the week's baseline that is left out,
 * never the current hour; the first usage is read on its own.
 */
export async function snapshotFromRecords(repos: Repositories, orgId: OrgId, now: Date, limit = EMBEDDED_RECORD_LIMIT): Promise<UsageSnapshot> {
  const t = now.getTime();
  const windowStart = t - HOUR_MS;
  const range = { from: new Date(t - HISTORY_LOOKBACK_MS), to: new Date(t + 1) };
  const [records, [first]] = await Promise.all([repos.usage.listBefore(orgId, range, null, limit), repos.usage.replay(orgId, range, 1)]);
  const current = new Map<string, Row>();
  const previousDay = new Map<string, Row>();
  const sameHour = new Map<number, number>();
  let previousWeekCost = 0;
  for (const record of records) {
    const at = record.created_at.getTime();
    if (at >= windowStart) add(current, record);
    else if (at >= windowStart - DAY_MS) add(previousDay, record);
    if (at < windowStart && at >= windowStart - 7 * DAY_MS) previousWeekCost += record.cost;
    for (let day = 1; day <= SAME_HOUR_DAYS; day += 1) {
      if (at >= t - day * DAY_MS - HOUR_MS && at <= t - day * DAY_MS) sameHour.set(day, (sameHour.get(day) ?? 0) + 1);
    }
  }
  return complete(repos, orgId, now, {
    firstUsageAt: first ? first.created_at : null,
    current: [...current.values()],
    previousDay: [...previousDay.values()],
    previousWeekCost,
    sameHour: (day) => sameHour.get(day) ?? 0,
  });
}

type Row = ReturnType<typeof rows>[number];

function add(groups: Map<string, Row>, record: UsageRecordEntity): void {
  const key = JSON.stringify([record.agent ?? null, record.model]);
  const row = groups.get(key) ?? { agent: record.agent ?? null, model: record.model, cost: 0, requests: 0, completed: 0 };
  row.cost += record.cost;
  row.requests += 1;
  if (record.blocked_by === null || record.blocked_by === undefined) row.completed += 1;
  groups.set(key, row);
}

interface Gathered {
  firstUsageAt: Date | null;
  current: Row[];
  previousDay: Row[];
  previousWeekCost: number;
  sameHour: (daysAgo: number) => number;
}

async function complete(repos: Repositories, orgId: OrgId, now: Date, gathered: Gathered): Promise<UsageSnapshot> {
  const t = now.getTime();
  const { firstUsageAt } = gathered;
  const sameHourRequests: UsageSnapshot['sameHourRequests'] = [];
  for (let daysAgo = 1; daysAgo <= SAME_HOUR_DAYS; daysAgo += 1) {
    // Only days the organization already had usage before: a new one has no "normal" yet.
    if (!firstUsageAt || firstUsageAt.getTime() > t - daysAgo * DAY_MS - HOUR_MS) continue;
    sameHourRequests.push({ daysAgo, requests: gathered.sameHour(daysAgo) });
  }
  const current = foldByAgent(gathered.current);
  const agentsSpent = current.some((group) => group.agent !== null && group.cost > 0);
  return {
    orgId,
    now,
    windowStart: new Date(t - HOUR_MS),
    firstUsageAt,
    current,
    previousDay: foldByAgent(gathered.previousDay),
    previousWeekCost: gathered.previousWeekCost,
    sameHourRequests,
    dailyBudget: agentsSpent ? await dailyBudget(repos, orgId) : null,
  };
}

function rows(groups: GroupRow[] | undefined) {
  return (groups ?? []).map((row) => ({
    agent: row._id.agent ?? null,
    model: row._id.model ?? 'unknown',
    cost: Number(row.cost) || 0,
    requests: Number(row.requests) || 0,
    completed: Number(row.completed) || 0,
  }));
}

/** The organization's daily budget in force: its policy override, else its tier's default. */
async function dailyBudget(repos: Repositories, orgId: OrgId): Promise<number> {
  const [organization, policy] = await Promise.all([repos.organizations.findById(orgId), repos.policies.get(orgId)]);
  return effectivePolicy(organization?.plan ?? 'free', policyOverrides(policy) as PolicyOverrides).daily_budget;
}
