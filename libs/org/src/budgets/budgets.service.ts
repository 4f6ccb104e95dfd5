import { Inject, Injectable } from '@nestjs/common';
import { BudgetType, NamedBudgetEntity, OrgId, Repositories, roundUsd } from '@svc/domain';
import { InvalidationBus } from '@svc/platform';
import { INVALIDATION_BUS, REPOSITORIES } from '@svc/runtime';
import { orgErrors, round2 } from '../common/org-errors';
import { carryOverAlerts, utilizationPct } from './budget-alerts';
import { BudgetEvaluator, EvaluatedBudget } from './budget-evaluator';
import type { BudgetDto, BudgetListDto, CreateBudgetDto, UpdateBudgetDto } from './dto/budget.dto';

/**
 * Named budgets (SPEC.md "Named budget", DECISIONS.md "Named budgets"). Every read and write
 * evaluates the budgets it returns (BudgetEvaluator: `current`, alert states, notifications); the
 * periodic BudgetAlertWorker evaluates them as spend accrues. Writes publish `policy` for the
 * organization on the invalidation bus, so every gateway replica sees a changed auto-stop budget
 * at once.
 */
@Injectable()
export class BudgetsService {
  constructor(
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    @Inject(INVALIDATION_BUS) private readonly invalidation: InvalidationBus,
    private readonly evaluator: BudgetEvaluator,
  ) {}

  async list(orgId: OrgId, page: number, pageSize: number): Promise<BudgetListDto> {
    const result = await this.repositories.namedBudgets.list(orgId, { offset: (page - 1) * pageSize, limit: pageSize });
    const budgets = (await this.evaluator.evaluate(orgId, result.items)).map(toBudgetDto);
    return { budgets, total: result.total, page, page_size: pageSize, total_count: result.total, has_more: page * pageSize < result.total };
  }

  async get(orgId: OrgId, id: string): Promise<BudgetDto> {
    return this.render(orgId, await this.find(orgId, id));
  }

  async create(orgId: OrgId, input: CreateBudgetDto): Promise<BudgetDto> {
    const type = input.type ?? 'monthly';
    assertAutoStop(type, input.auto_stop ?? false);
    const name = input.name.trim();
    if (!name) throw orgErrors.validation('name must not be blank', 'name');
    const budget = await this.repositories.namedBudgets.create(orgId, {
      name,
      type,
      limit: input.limit,
      alerts: (input.alerts ?? []).map((alert) => ({ threshold: alert.threshold, channels: alert.channels })),
      auto_stop: input.auto_stop ?? false,
    });
    await this.invalidation.publish('policy', orgId);
    return this.render(orgId, budget);
  }

  /**
   * Only the fields sent change. New `alerts` replace the old ones; a threshold that was already
   * there keeps its triggered state, so it does not notify again.
   */
  async update(orgId: OrgId, id: string, input: UpdateBudgetDto): Promise<BudgetDto> {
    const current = await this.find(orgId, id);
    assertAutoStop(input.type ?? current.type, input.auto_stop ?? current.auto_stop);
    const patch: Partial<NamedBudgetEntity> = {};
    if (input.name !== undefined) {
      patch.name = input.name.trim();
      if (!patch.name) throw orgErrors.validation('name must not be blank', 'name');
    }
    if (input.type !== undefined) patch.type = input.type;
    if (input.limit !== undefined) patch.limit = input.limit;
    if (input.auto_stop !== undefined) patch.auto_stop = input.auto_stop;
    if (input.alerts !== undefined) patch.alerts = carryOverAlerts(current.alerts, input.alerts);
    const updated = Object.keys(patch).length ? await this.repositories.namedBudgets.updateById(orgId, id, patch) : current;
    if (!updated) throw orgErrors.notFound('Budget', id);
    if (updated !== current) await this.invalidation.publish('policy', orgId);
    return this.render(orgId, updated);
  }

  async remove(orgId: OrgId, id: string): Promise<void> {
    if (!(await this.repositories.namedBudgets.deleteById(orgId, id))) throw orgErrors.notFound('Budget', id);
    await this.invalidation.publish('policy', orgId);
  }

  private async find(orgId: OrgId, id: string): Promise<NamedBudgetEntity> {
    const budget = await this.repositories.namedBudgets.findById(orgId, id);
    if (!budget) throw orgErrors.notFound('Budget', id);
    return budget;
  }

  private async render(orgId: OrgId, budget: NamedBudgetEntity): Promise<BudgetDto> {
    return toBudgetDto((await this.evaluator.evaluate(orgId, [budget]))[0]);
  }
}

export function toBudgetDto({ budget, current, period, alerts }: EvaluatedBudget): BudgetDto {
  return {
    id: budget._id,
    name: budget.name,
    type: budget.type,
    limit: budget.limit,
    current: roundUsd(current),
    utilization: round2(utilizationPct(current, budget.limit)),
    period_start: period.start.toISOString(),
    period_end: period.end.toISOString(),
    alerts: alerts.map((alert) => ({
      threshold: alert.threshold,
      channels: alert.channels,
      triggered: alert.triggered,
      triggered_at: alert.triggered_at ? alert.triggered_at.toISOString() : null,
    })),
    auto_stop: budget.auto_stop,
    created_at: budget.created_at.toISOString(),
    updated_at: budget.updated_at.toISOString(),
  };
}

function assertAutoStop(type: BudgetType, autoStop: boolean): void {
  if (autoStop && type !== 'daily') throw orgErrors.validation('auto_stop is only available on daily budgets', 'auto_stop');
}
