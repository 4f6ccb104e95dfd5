import { newId } from '../shared/ids';
import { TenantRepository } from '../shared/tenant-repository';
import type { OrgId } from '../shared/tenancy';
import type { DocumentStore, Filter } from '../store/types';
import { BUDGET_NODES, BudgetLevel, BudgetNodeEntity, ResetPeriod } from './budget-node.entity';

export interface NewBudgetNode {
  name: string;
  level: BudgetLevel;
  budget_limit: number;
  reset_period: ResetPeriod;
  parent_id?: string | null;
  team_id?: string | null;
  key_id?: string | null;
  alert_thresholds?: number[];
  spend_seed?: { period: string; usd: number } | null;
}

const LEVEL_ORDER: Record<BudgetLevel, number> = { org: 0, team: 1, key: 2 };

export class BudgetNodeRepository extends TenantRepository<BudgetNodeEntity> {
  constructor(store: DocumentStore) {
    super(store, BUDGET_NODES);
  }

  /** Throws DuplicateKeyError (index `org_scope_unique`) when the scope already has a node. */
  create(orgId: OrgId, input: NewBudgetNode, now = new Date()): Promise<BudgetNodeEntity> {
    return this.insertIn(orgId, {
      _id: newId('budgetNode'),
      name: input.name,
      level: input.level,
      budget_limit: input.budget_limit,
      reset_period: input.reset_period,
      parent_id: input.parent_id ?? null,
      team_id: input.level === 'org' ? null : (input.team_id ?? null),
      key_id: input.level === 'key' ? (input.key_id ?? null) : null,
      alert_thresholds: [...(input.alert_thresholds ?? [])],
      spend_seed: input.spend_seed ?? null,
      created_at: now,
      updated_at: now,
    });
  }

  /** The nodes a request is charged to, org first, then its team's, then its key's. */
  async findForRequest(orgId: OrgId, scope: { teamId?: string | null; keyId?: string | null }): Promise<BudgetNodeEntity[]> {
    const branches: Filter<BudgetNodeEntity>[] = [{ level: 'org' }];
    if (scope.teamId) branches.push({ level: 'team', team_id: scope.teamId });
    if (scope.keyId) branches.push({ level: 'key', key_id: scope.keyId });
    const nodes = await this.findIn(orgId, { $or: branches });
    return nodes.sort((a, b) => LEVEL_ORDER[a.level] - LEVEL_ORDER[b.level] || a._id.localeCompare(b._id));
  }

  listChildren(orgId: OrgId, parentId: string): Promise<BudgetNodeEntity[]> {
    return this.findIn(orgId, { parent_id: parentId }, { sort: { created_at: 1, _id: 1 } });
  }

  /**
   * Key rotation: the key nodes of `fromKeyId` follow the key to its replacement `toKeyId` (same
   * node id, so stage 2.5's counters carry on). Returns how many nodes moved.
   */
  async moveKeyNodes(orgId: OrgId, fromKeyId: string, toKeyId: string, now = new Date()): Promise<number> {
    const result = await this.updateManyIn(orgId, { level: 'key', key_id: fromKeyId }, { $set: { key_id: toKeyId, updated_at: now } });
    return result.modified;
  }

  /** Every node of the org (the tree is small), at most 1000. */
  listAll(orgId: OrgId): Promise<BudgetNodeEntity[]> {
    return this.findIn(orgId, {}, { sort: { created_at: 1, _id: 1 }, limit: 1000 });
  }
}
