import type { OrgId } from '../shared/tenancy';
import type { UsageRecordRepository } from '../usage/usage-record.repository';
import type { BudgetType } from './named-budget.entity';
import type { NamedBudgetRepository } from './named-budget.repository';

export interface BudgetPeriod {
  /** Inclusive, UTC. */
  start: Date;
  /** Exclusive, UTC. */
  end: Date;
}

/**
 * The current period of a named budget, in UTC (DECISIONS.md "Named budgets"): the day, the ISO
 * week (Monday 00:00) or the calendar month that contains `now`.
 */
export function budgetPeriod(type: BudgetType, now = new Date()): BudgetPeriod {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  const d = now.getUTCDate();
  if (type === 'daily') return { start: new Date(Date.UTC(y, m, d)), end: new Date(Date.UTC(y, m, d + 1)) };
  if (type === 'weekly') {
    const sinceMonday = (now.getUTCDay() + 6) % 7;
    return { start: new Date(Date.UTC(y, m, d - sinceMonday)), end: new Date(Date.UTC(y, m, d - sinceMonday + 7)) };
  }
  return { start: new Date(Date.UTC(y, m, 1)), end: new Date(Date.UTC(y, m + 1, 1)) };
}

/** The organization's gateway spend (sum of usage `cost`) in a budget's current period. */
export async function spendInPeriod(
  usage: Pick<UsageRecordRepository, 'totals'>,
  orgId: OrgId,
  type: BudgetType,
  now = new Date(),
): Promise<number> {
  const period = budgetPeriod(type, now);
  return (await usage.totals(orgId, { from: period.start, to: period.end })).cost;
}

export interface AutoStopState {
  stopped: boolean;
  /** The daily auto-stop budget that is exhausted, when stopped. */
  budget: { id: string; name: string; limit: number } | null;
  spent: number;
}

/**
 * Whether the organization is auto-stopped now: a daily named budget with `auto_stop` whose limit
 * today's spend has reached (DECISIONS.md "Named budgets"). The gateway refuses the organization's
 * requests with 403 `daily_budget` (GW_COST_002) while this holds; it ends when the UTC day turns.
 */
export async function autoStopState(
  repos: { namedBudgets: Pick<NamedBudgetRepository, 'listAutoStop'>; usage: Pick<UsageRecordRepository, 'totals'> },
  orgId: OrgId,
  now = new Date(),
): Promise<AutoStopState> {
  const budgets = await repos.namedBudgets.listAutoStop(orgId);
  if (budgets.length === 0) return { stopped: false, budget: null, spent: 0 };
  const spent = await spendInPeriod(repos.usage, orgId, 'daily', now);
  const hit = [...budgets].sort((a, b) => a.limit - b.limit).find((budget) => spent >= budget.limit);
  return { stopped: hit !== undefined, budget: hit ? { id: hit._id, name: hit.name, limit: hit.limit } : null, spent };
}
