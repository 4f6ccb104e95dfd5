import type { ApiKeyRepository } from '../api-keys/api-key.repository';
import type { OrgId } from '../shared/tenancy';
import type { UsageRecordRepository } from '../usage/usage-record.repository';
import type { BudgetNodeEntity } from './budget-node.entity';
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

/** Rotations followed back when summing a key node's spend. */
const MAX_ROTATIONS_FOLLOWED = 10;

/**
 * Spend of each budget node in its current period, from the usage records (DECISIONS.md
 * "Hierarchical budgets"): all the organization's usage for an org node, its team's for a team
 * node, its key's (and the keys that key replaced) for a key node. The admin view shows it, and
 * stores it on the node when writing it (`spend_seed`), where the gateway starts the node's counter.
 */
export async function nodeSpend(
  repos: { usage: Pick<UsageRecordRepository, 'totals' | 'totalsByField'>; apiKeys: Pick<ApiKeyRepository, 'list'> },
  orgId: OrgId,
  nodes: readonly Pick<BudgetNodeEntity, '_id' | 'level' | 'reset_period' | 'team_id' | 'key_id'>[],
  now = new Date(),
): Promise<Map<string, number>> {
  const result = new Map<string, number>();
  const periods = [...new Set(nodes.map((node) => node.reset_period))];
  for (const periodName of periods) {
    const period = budgetPeriod(periodName, now);
    const range = { from: period.start, to: period.end };
    const inPeriod = nodes.filter((node) => node.reset_period === periodName);
    const [total, byKey, byTeam] = await Promise.all([
      inPeriod.some((n) => n.level === 'org') ? repos.usage.totals(orgId, range) : null,
      inPeriod.some((n) => n.level === 'key') ? repos.usage.totalsByField(orgId, range, 'key_id') : [],
      inPeriod.some((n) => n.level === 'team') ? repos.usage.totalsByField(orgId, range, 'team_id') : [],
    ]);
    const keyCost = new Map(byKey.map((row) => [row.key_id, row.cost]));
    const teamCost = new Map(byTeam.map((row) => [row.team_id, row.cost]));
    const keyNodes = inPeriod.filter((n) => n.level === 'key' && n.key_id !== null);
    const lineage = keyNodes.length ? await keyLineage(repos.apiKeys, orgId, keyNodes.map((n) => n.key_id as string)) : new Map<string, string[]>();
    const ofKey = (keyId: string | null) => (keyId === null ? 0 : (lineage.get(keyId) ?? [keyId]).reduce((sum, id) => sum + (keyCost.get(id) ?? 0), 0));
    for (const node of inPeriod) {
      const cost = node.level === 'org' ? (total?.cost ?? 0) : node.level === 'team' ? (teamCost.get(node.team_id) ?? 0) : ofKey(node.key_id);
      result.set(node._id, cost);
    }
  }
  return result;
}

/**
 * Each key with the keys it replaced (rotation moves a key node to the replacement, and the
 * usage of the period recorded under the older ids still counts), a few rotations deep.
 */
async function keyLineage(apiKeys: Pick<ApiKeyRepository, 'list'>, orgId: OrgId, keyIds: string[]): Promise<Map<string, string[]>> {
  const lineage = new Map(keyIds.map((id) => [id, [id]]));
  let frontier = new Map(keyIds.map((id) => [id, id]));
  for (let depth = 0; depth < MAX_ROTATIONS_FOLLOWED && frontier.size > 0; depth++) {
    const previous = await apiKeys.list(orgId, { filter: { replaced_by: { $in: [...frontier.keys()] } }, limit: 1000 });
    const next = new Map<string, string>();
    for (const key of previous.items) {
      const root = frontier.get(key.replaced_by as string) as string;
      lineage.get(root)?.push(key._id);
      next.set(key._id, root);
    }
    frontier = next;
  }
  return lineage;
}
