import { newId } from '../shared/ids';
import { TenantRepository } from '../shared/tenant-repository';
import type { OrgId } from '../shared/tenancy';
import type { DocumentStore } from '../store/types';
import { AlertChannel, BudgetType, NAMED_BUDGETS, NamedBudgetEntity } from './named-budget.entity';

export interface NewNamedBudget {
  name: string;
  type?: BudgetType;
  limit: number;
  alerts?: { threshold: number; channels: AlertChannel[] }[];
  auto_stop?: boolean;
}

export class NamedBudgetRepository extends TenantRepository<NamedBudgetEntity> {
  constructor(store: DocumentStore) {
    super(store, NAMED_BUDGETS);
  }

  create(orgId: OrgId, input: NewNamedBudget, now = new Date()): Promise<NamedBudgetEntity> {
    return this.insertIn(orgId, {
      _id: newId('namedBudget'),
      name: input.name,
      type: input.type ?? 'monthly',
      limit: input.limit,
      alerts: (input.alerts ?? []).map((a) => ({ threshold: a.threshold, channels: [...a.channels], triggered: false, triggered_at: null })),
      auto_stop: input.auto_stop ?? false,
      created_at: now,
      updated_at: now,
    });
  }

  /** Every budget of the org (for spend evaluation), at most 1000. */
  listAll(orgId: OrgId): Promise<NamedBudgetEntity[]> {
    return this.findIn(orgId, {}, { sort: { created_at: 1, _id: 1 }, limit: 1000 });
  }

  /** Daily budgets with auto_stop: what the gateway checks. */
  listAutoStop(orgId: OrgId): Promise<NamedBudgetEntity[]> {
    return this.findIn(orgId, { auto_stop: true, type: 'daily' }, { sort: { created_at: 1, _id: 1 } });
  }

  /** Sets (or resets) one alert's triggered state; false when the budget or alert does not exist. */
  async setAlertState(orgId: OrgId, id: string, alertIndex: number, triggered: boolean, at = new Date()): Promise<boolean> {
    if (!Number.isInteger(alertIndex) || alertIndex < 0) return false;
    const result = await this.updateOneIn(
      orgId,
      { _id: id, [`alerts.${alertIndex}`]: { $exists: true } },
      {
        $set: {
          [`alerts.${alertIndex}.triggered`]: triggered,
          [`alerts.${alertIndex}.triggered_at`]: triggered ? at : null,
        },
      },
    );
    return result.matched === 1;
  }

  /**
   * Compare-and-set of one alert's state, for evaluators that may race (replicas, a read and the
   * periodic check): it triggers the alert only while its threshold is still `threshold` and it is
   * not triggered since `since` (the start of the budget's current period), and resets it only
   * while it is triggered. True for the one call that made the change, which alone notifies.
   */
  async transitionAlert(
    orgId: OrgId,
    id: string,
    alertIndex: number,
    change: { threshold: number; triggered: boolean; since?: Date },
    at = new Date(),
  ): Promise<boolean> {
    if (!Number.isInteger(alertIndex) || alertIndex < 0) return false;
    const path = `alerts.${alertIndex}`;
    const state = change.triggered
      ? { $or: [{ [`${path}.triggered`]: false }, ...(change.since ? [{ [`${path}.triggered_at`]: { $lt: change.since } }] : [])] }
      : { [`${path}.triggered`]: true };
    const result = await this.updateOneIn(
      orgId,
      { _id: id, [`${path}.threshold`]: change.threshold, ...state },
      { $set: { [`${path}.triggered`]: change.triggered, [`${path}.triggered_at`]: change.triggered ? at : null } },
    );
    return result.modified === 1;
  }
}
