/** What the anomaly rules read about one organization's usage, gathered by `loadUsageSnapshot`. */

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

/** Usage of one model within a group (an agent, or the requests without one). */
export interface ModelUsage {
  model: string;
  cost: number;
  requests: number;
  /** Requests that were not blocked (the ones that cost something). */
  completed: number;
}

/** Usage of one agent within a window; `agent` null = requests that named no agent. */
export interface AgentUsage {
  agent: string | null;
  cost: number;
  requests: number;
  completed: number;
  /** Busiest first. */
  models: ModelUsage[];
}

export interface UsageSnapshot {
  orgId: string;
  now: Date;
  /** Start of the current window, the last 60 minutes: [now - 1 h, now]. */
  windowStart: Date;
  /** The organization's earliest usage within the last 8 days (null: none). */
  firstUsageAt: Date | null;
  /** The current window, per agent. */
  current: AgentUsage[];
  /** The 24 hours before the current window, per agent (model_drift's baseline). */
  previousDay: AgentUsage[];
  /** Cost of the 7 days before the current window (hourly_spike's baseline). */
  previousWeekCost: number;
  /**
   * Requests in the same 60 minutes of each previous day (1 = yesterday ... 7), only for days the
   * organization already had usage before (volume_surge's "normal for the time of day").
   */
  sameHourRequests: { daysAgo: number; requests: number }[];
  /** The daily budget in force (tier default or policy); null when not loaded (no agent spent anything). */
  dailyBudget: number | null;
}

export function totalOf(groups: AgentUsage[]): { cost: number; requests: number; completed: number } {
  return groups.reduce(
    (sum, group) => ({ cost: sum.cost + group.cost, requests: sum.requests + group.requests, completed: sum.completed + group.completed }),
    { cost: 0, requests: 0, completed: 0 },
  );
}

/** Rows of a `$group` by `{agent, model}` folded into per-agent usage, models busiest first. */
export function foldByAgent(rows: { agent: string | null; model: string; cost: number; requests: number; completed: number }[]): AgentUsage[] {
  const byAgent = new Map<string | null, AgentUsage>();
  for (const row of rows) {
    const key = row.agent ?? null;
    let group = byAgent.get(key);
    if (!group) {
      group = { agent: key, cost: 0, requests: 0, completed: 0, models: [] };
      byAgent.set(key, group);
    }
    group.cost += row.cost;
    group.requests += row.requests;
    group.completed += row.completed;
    group.models.push({ model: row.model, cost: row.cost, requests: row.requests, completed: row.completed });
  }
  for (const group of byAgent.values()) group.models.sort((a, b) => b.requests - a.requests || a.model.localeCompare(b.model));
  return [...byAgent.values()];
}
