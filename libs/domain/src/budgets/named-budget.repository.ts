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
    return this.findIn(orgId, { auto_stop: true, type: 'daily' }, { sort: { created_at: 1 } });
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
}
