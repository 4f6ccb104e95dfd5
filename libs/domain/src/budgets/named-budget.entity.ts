import { defineCollection } from '../store/types';

export const BUDGET_TYPES = ['daily', 'weekly', 'monthly'] as const;
export type BudgetType = (typeof BUDGET_TYPES)[number];
export const ALERT_CHANNELS = ['email', 'slack', 'webhook'] as const;
export type AlertChannel = (typeof ALERT_CHANNELS)[number];

export interface BudgetAlert {
  /** Percent, 0-100. */
  threshold: number;
  channels: AlertChannel[];
  triggered: boolean;
  triggered_at: Date | null;
}

/** A named budget of the organization API (SPEC.md "Named budget"). `current` is computed, not stored. */
export interface NamedBudgetEntity {
  /** `budget_...` */
  _id: string;
  org_id: string;
  name: string;
  type: BudgetType;
  /** USD, > 0. */
  limit: number;
  alerts: BudgetAlert[];
  /** Daily budgets only: refuse the org's gateway requests once reached. */
  auto_stop: boolean;
  created_at: Date;
  updated_at: Date;
}

export const NAMED_BUDGETS = defineCollection<NamedBudgetEntity>('named_budgets', [
  { fields: { org_id: 1, created_at: -1 }, comment: 'budgets of an org, paged' },
  { fields: { org_id: 1, auto_stop: 1, type: 1 }, comment: 'auto-stop check on gateway requests: daily budgets with auto_stop' },
]);
