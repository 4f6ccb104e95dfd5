import { defineCollection } from '../store/types';

export const BUDGET_LEVELS = ['org', 'team', 'key'] as const;
export type BudgetLevel = (typeof BUDGET_LEVELS)[number];
export const RESET_PERIODS = ['daily', 'weekly', 'monthly'] as const;
export type ResetPeriod = (typeof RESET_PERIODS)[number];

/** A node of the hierarchical budget tree org -> team -> key (DECISIONS.md "Hierarchical budgets"). */
export interface BudgetNodeEntity {
  /** `node_...` */
  _id: string;
  org_id: string;
  name: string;
  level: BudgetLevel;
  budget_limit: number;
  reset_period: ResetPeriod;
  parent_id: string | null;
  /** Set for `team` nodes (and key nodes whose key has a team). */
  team_id: string | null;
  /** Set for `key` nodes. */
  key_id: string | null;
  /** Alert thresholds in percent (`budget_hierarchy_alert`). */
  alert_thresholds: number[];
  /**
   * The node's spend in its period when the node was last written (from the usage records; the
   * admin service computes it). The gateway starts the node's counter from it, if the counter does
   * not exist yet and `period` is still the current one, so a node created or lowered mid-period
   * counts what its scope already spent. Absent on nodes written before it existed.
   */
  spend_seed?: { period: string; usd: number } | null;
  created_at: Date;
  updated_at: Date;
}

export const BUDGET_NODES = defineCollection<BudgetNodeEntity>('budget_nodes', [
  {
    fields: { org_id: 1, level: 1, team_id: 1, key_id: 1 },
    unique: true,
    name: 'org_scope_unique',
    comment: 'the nodes a request is charged to (org, its team, its key): one node per scope',
  },
  { fields: { org_id: 1, parent_id: 1 }, comment: 'children of a node' },
]);
