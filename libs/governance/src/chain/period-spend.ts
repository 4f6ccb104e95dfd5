import { asOrgId, budgetPeriod, nodeSpend, Repositories } from '@svc/domain';
import type { ReseedTarget, SpendSnapshot } from '../counters/counter-epoch';
import type { CounterKeys } from '../counters/keys';
import { dayKey, monthKey, PERIOD_TTL_SECONDS, periodKey, toMicros } from '../counters/periods';

export type PeriodSpendRepositories = Pick<Repositories, 'usage' | 'budgetNodes' | 'apiKeys'>;

/**
 * The spend the counters would hold now, from the usage records (the figures the reports show):
 * per organization with usage in a current period, its day, its month and each of its budget
 * nodes in the node's period (nodeSpend, as the node's view shows it). Named budgets with
 * `auto_stop` are checked against the day's counter, so they need nothing of their own; a runner
 * session's counter is seeded from the session's stored spend by the admit itself.
 */
export async function periodSpend(repos: PeriodSpendRepositories, keys: CounterKeys, now: Date): Promise<SpendSnapshot> {
  const day = budgetPeriod('daily', now);
  const week = budgetPeriod('weekly', now);
  const month = budgetPeriod('monthly', now);
  // A weekly node's week may have started in the previous month.
  const since = week.start < month.start ? week.start : month.start;
  const orgs: SpendSnapshot['orgs'] = [];
  let todayMicros = 0;
  for (const id of await repos.usage.listOrgIdsWithUsageSince(since)) {
    const orgId = asOrgId(id);
    const [dayTotals, monthTotals, nodes] = await Promise.all([
      repos.usage.totals(orgId, { from: day.start, to: day.end }),
      repos.usage.totals(orgId, { from: month.start, to: month.end }),
      repos.budgetNodes.listAll(orgId),
    ]);
    const dayMicros = toMicros(dayTotals.cost);
    todayMicros += dayMicros;
    const targets: ReseedTarget[] = [
      { key: keys.day(id, dayKey(now)), totalMicros: dayMicros, seedMicros: 0, ttlSeconds: PERIOD_TTL_SECONDS.daily },
      { key: keys.month(id, monthKey(now)), totalMicros: toMicros(monthTotals.cost), seedMicros: 0, ttlSeconds: PERIOD_TTL_SECONDS.monthly },
    ];
    if (nodes.length > 0) {
      const spent = await nodeSpend(repos, orgId, nodes, now);
      for (const node of nodes) {
        const period = periodKey(node.reset_period, now);
        targets.push({
          key: keys.node(id, node._id, period),
          totalMicros: toMicros(spent.get(node._id) ?? 0),
          // What the admit that creates the counter seeds it with (counter-plan.ts).
          seedMicros: node.spend_seed?.period === period ? toMicros(node.spend_seed.usd) : 0,
          ttlSeconds: PERIOD_TTL_SECONDS[node.reset_period],
        });
      }
    }
    orgs.push({ orgId: id, targets: targets.filter((target) => target.totalMicros > 0) });
  }
  return { orgs, today: { key: keys.today(dayKey(now)), totalMicros: todayMicros, ttlSeconds: PERIOD_TTL_SECONDS.daily } };
}
