import { Inject, Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { BudgetLevel, BudgetNodeEntity, budgetPeriod, DuplicateKeyError, nodeSpend, OrgId, Patch, Repositories, roundUsd } from '@svc/domain';
import { periodKey } from '@svc/governance';
import { invalidRequest, InvalidationBus, notFound } from '@svc/platform';
import { INVALIDATION_BUS, REPOSITORIES } from '@svc/runtime';
import { alreadyExists } from '../common/admin-errors';
import { BudgetNodeView, CreateBudgetNodeDto, UpdateBudgetNodeDto } from './dto/budget-node.dto';

const LEVEL_RANK: Record<BudgetLevel, number> = { org: 0, team: 1, key: 2 };

function toNodeView(node: BudgetNodeEntity, spent: number, now: Date): BudgetNodeView {
  const period = budgetPeriod(node.reset_period, now);
  const current = roundUsd(spent);
  return {
    id: node._id,
    name: node.name,
    level: node.level,
    budget_limit: node.budget_limit,
    reset_period: node.reset_period,
    parent_id: node.parent_id,
    team_id: node.team_id,
    key_id: node.key_id,
    alert_thresholds: node.alert_thresholds,
    current_spend: current,
    remaining: roundUsd(Math.max(0, node.budget_limit - current)),
    utilization_pct: node.budget_limit > 0 ? Math.round((current / node.budget_limit) * 10_000) / 100 : 0,
    period_start: period.start.toISOString(),
    period_end: period.end.toISOString(),
    created_at: node.created_at.toISOString(),
    updated_at: node.updated_at.toISOString(),
  };
}

/**
 * Hierarchical budget nodes (DECISIONS.md "Hierarchical budgets"): org -> team -> key, one node per
 * scope. Stage 2.5 reads them from the governance profile cache, so every change publishes
 * `policy` (id = organization id).
 */
@Injectable()
export class BudgetNodesService {
  constructor(
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    @Inject(INVALIDATION_BUS) private readonly invalidation: InvalidationBus,
  ) {}

  async list(principal: Principal): Promise<{ items: BudgetNodeView[]; total: number }> {
    const now = new Date();
    const nodes = await this.repositories.budgetNodes.listAll(principal.orgId);
    const spend = await nodeSpend(this.repositories, principal.orgId, nodes, now);
    return { items: nodes.map((node) => toNodeView(node, spend.get(node._id) ?? 0, now)), total: nodes.length };
  }

  async get(principal: Principal, id: string): Promise<BudgetNodeView> {
    return this.view(principal.orgId, await this.load(principal.orgId, id));
  }

  async create(principal: Principal, body: CreateBudgetNodeDto): Promise<BudgetNodeView> {
    const orgId = principal.orgId;
    const name = body.name.trim();
    if (!name) throw invalidRequest('name must not be blank', 'name');
    const scope = await this.scope(orgId, body);
    const parentId = body.parent_id !== undefined ? (await this.parent(orgId, body.parent_id, body.level))._id : await this.defaultParent(orgId, body.level, scope.team_id);
    try {
      const now = new Date();
      const node = await this.repositories.budgetNodes.create(orgId, {
        name,
        level: body.level,
        budget_limit: body.budget_limit,
        reset_period: body.reset_period,
        parent_id: parentId,
        team_id: scope.team_id,
        key_id: scope.key_id,
        alert_thresholds: this.thresholds(body.alert_thresholds),
        spend_seed: await this.spendSeed(orgId, { _id: 'new', level: body.level, reset_period: body.reset_period, ...scope }, now),
      });
      await this.invalidation.publish('policy', orgId);
      return this.view(orgId, node);
    } catch (error) {
      if (!(error instanceof DuplicateKeyError)) throw error;
      const existing = (await this.repositories.budgetNodes.listAll(orgId)).find(
        (node) => node.level === body.level && node.team_id === (body.level === 'org' ? null : scope.team_id) && node.key_id === scope.key_id,
      );
      throw alreadyExists('budget_node', `A ${body.level} budget node already exists for this scope`, existing?._id ?? null);
    }
  }

  async update(principal: Principal, id: string, body: UpdateBudgetNodeDto): Promise<BudgetNodeView> {
    const orgId = principal.orgId;
    const node = await this.load(orgId, id);
    const patch: Patch<BudgetNodeEntity> = {};
    if (body.name !== undefined) {
      patch.name = body.name.trim();
      if (!patch.name) throw invalidRequest('name must not be blank', 'name');
    }
    if (body.budget_limit !== undefined) patch.budget_limit = body.budget_limit;
    if (body.reset_period !== undefined) patch.reset_period = body.reset_period;
    if (body.alert_thresholds !== undefined) patch.alert_thresholds = this.thresholds(body.alert_thresholds);
    if (body.parent_id !== undefined) {
      if (body.parent_id === node._id) throw invalidRequest('A node cannot be its own parent', 'parent_id');
      patch.parent_id = body.parent_id === null ? null : (await this.parent(orgId, body.parent_id, node.level))._id;
    }
    // The period's spend so far, again: the gateway starts the node's counter from it if it has none yet.
    patch.spend_seed = await this.spendSeed(orgId, { ...node, reset_period: patch.reset_period ?? node.reset_period }, new Date());
    const updated = await this.repositories.budgetNodes.updateById(orgId, node._id, patch);
    if (!updated) throw notFound('Budget node', 'node_id');
    await this.invalidation.publish('policy', orgId);
    return this.view(orgId, updated);
  }

  /** Deletes a node; its children move up to its parent. */
  async remove(principal: Principal, id: string): Promise<void> {
    const orgId = principal.orgId;
    const node = await this.load(orgId, id);
    for (const child of await this.repositories.budgetNodes.listChildren(orgId, node._id)) {
      await this.repositories.budgetNodes.updateById(orgId, child._id, { parent_id: node.parent_id });
    }
    await this.repositories.budgetNodes.deleteById(orgId, node._id);
    await this.invalidation.publish('policy', orgId);
  }

  private async load(orgId: OrgId, id: string): Promise<BudgetNodeEntity> {
    const node = await this.repositories.budgetNodes.findById(orgId, id);
    if (!node) throw notFound('Budget node', 'node_id');
    return node;
  }

  private async view(orgId: OrgId, node: BudgetNodeEntity): Promise<BudgetNodeView> {
    const now = new Date();
    const spend = await nodeSpend(this.repositories, orgId, [node], now);
    return toNodeView(node, spend.get(node._id) ?? 0, now);
  }

  /** The team and key a node is charged for, checked against its level. */
  private async scope(orgId: OrgId, body: CreateBudgetNodeDto): Promise<{ team_id: string | null; key_id: string | null }> {
    if (body.level === 'org') {
      if (body.team_id !== undefined || body.key_id !== undefined) throw invalidRequest('An org node takes neither team_id nor key_id', body.team_id !== undefined ? 'team_id' : 'key_id');
      return { team_id: null, key_id: null };
    }
    if (body.level === 'team') {
      if (body.key_id !== undefined) throw invalidRequest('A team node takes no key_id', 'key_id');
      if (!body.team_id?.trim()) throw invalidRequest('team_id is required for a team node', 'team_id');
      return { team_id: body.team_id.trim(), key_id: null };
    }
    if (!body.key_id) throw invalidRequest('key_id is required for a key node', 'key_id');
    const key = await this.repositories.apiKeys.findById(orgId, body.key_id);
    if (!key) throw notFound('API key', 'key_id');
    if (body.team_id !== undefined && key.team_id !== null && body.team_id !== key.team_id) {
      throw invalidRequest(`The key belongs to team ${key.team_id}, not ${body.team_id}`, 'team_id');
    }
    return { team_id: key.team_id ?? body.team_id ?? null, key_id: key._id };
  }

  private async parent(orgId: OrgId, parentId: string, level: BudgetLevel): Promise<BudgetNodeEntity> {
    const parent = await this.repositories.budgetNodes.findById(orgId, parentId);
    if (!parent) throw notFound('Parent budget node', 'parent_id');
    if (LEVEL_RANK[parent.level] >= LEVEL_RANK[level]) throw invalidRequest(`A ${level} node cannot have a ${parent.level} node as parent`, 'parent_id');
    return parent;
  }

  private async defaultParent(orgId: OrgId, level: BudgetLevel, teamId: string | null): Promise<string | null> {
    if (level === 'org') return null;
    const nodes = await this.repositories.budgetNodes.listAll(orgId);
    const team = level === 'key' && teamId ? nodes.find((node) => node.level === 'team' && node.team_id === teamId) : undefined;
    return (team ?? nodes.find((node) => node.level === 'org'))?._id ?? null;
  }

  /**
   * What the node's scope has spent in its current period (BudgetNodeEntity.spend_seed): a node
   * created or lowered mid-period then refuses as soon as its view shows it over the limit, instead
   * of counting from 0 in the gateway.
   */
  private async spendSeed(
    orgId: OrgId,
    node: Pick<BudgetNodeEntity, '_id' | 'level' | 'reset_period' | 'team_id' | 'key_id'>,
    now: Date,
  ): Promise<{ period: string; usd: number }> {
    const spend = await nodeSpend(this.repositories, orgId, [node], now);
    return { period: periodKey(node.reset_period, now), usd: spend.get(node._id) ?? 0 };
  }

  private thresholds(values: number[] | undefined): number[] {
    return [...new Set(values ?? [])].sort((a, b) => a - b);
  }
}
