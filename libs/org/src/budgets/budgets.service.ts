import { Inject, Injectable } from '@nestjs/common';
import { budgetPeriod, BudgetType, NamedBudgetEntity, OrgId, Repositories, spendInPeriod } from '@svc/domain';
import { createEvent, EVENT_BUS, EVENT_PUBLISHER, EVENT_SOURCES, EventBus, EventPublisher, QUEUES } from '@svc/events';
import { LOGGER, Logger } from '@svc/platform';
import { REPOSITORIES } from '@svc/runtime';
import { orgErrors, round2, usd } from '../common/org-errors';
import { alertChanges, utilizationPct } from './budget-alerts';
import type { BudgetDto, BudgetListDto, CreateBudgetDto, UpdateBudgetDto } from './dto/budget.dto';

/**
 * Named budgets (SPEC.md "Named budget", DECISIONS.md "Named budgets"). `current` is the
 * organization's gateway spend in the budget's current UTC period, computed from usage records on
 * every read; alert states are recomputed with it and changes are persisted. A newly triggered
 * alert notifies its channels once: `webhook` publishes `budget.warning`, `slack` (alone) posts to
 * the team-chat integration, `email` is logged as a pending notification.
 */
@Injectable()
export class BudgetsService {
  constructor(
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    @Inject(EVENT_PUBLISHER) private readonly publisher: EventPublisher,
    @Inject(EVENT_BUS) private readonly bus: EventBus,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async list(orgId: OrgId, page: number, pageSize: number): Promise<BudgetListDto> {
    const result = await this.repositories.namedBudgets.list(orgId, { offset: (page - 1) * pageSize, limit: pageSize });
    const budgets = await this.evaluate(orgId, result.items);
    return { budgets, total: result.total, page, page_size: pageSize, total_count: result.total, has_more: page * pageSize < result.total };
  }

  async get(orgId: OrgId, id: string): Promise<BudgetDto> {
    return (await this.evaluate(orgId, [await this.find(orgId, id)]))[0];
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
    return (await this.evaluate(orgId, [budget]))[0];
  }

  /** Only the fields sent change; new `alerts` replace the old ones (states recomputed). */
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
    if (input.alerts !== undefined) {
      patch.alerts = input.alerts.map((alert) => ({ threshold: alert.threshold, channels: [...alert.channels], triggered: false, triggered_at: null }));
    }
    const updated = Object.keys(patch).length ? await this.repositories.namedBudgets.updateById(orgId, id, patch) : current;
    if (!updated) throw orgErrors.notFound('Budget', id);
    return (await this.evaluate(orgId, [updated]))[0];
  }

  async remove(orgId: OrgId, id: string): Promise<void> {
    if (!(await this.repositories.namedBudgets.deleteById(orgId, id))) throw orgErrors.notFound('Budget', id);
  }

  private async find(orgId: OrgId, id: string): Promise<NamedBudgetEntity> {
    const budget = await this.repositories.namedBudgets.findById(orgId, id);
    if (!budget) throw orgErrors.notFound('Budget', id);
    return budget;
  }

  /** Computes `current` once per budget type, updates alert states and renders the budgets. */
  private async evaluate(orgId: OrgId, budgets: NamedBudgetEntity[], now = new Date()): Promise<BudgetDto[]> {
    const spend = new Map<BudgetType, number>();
    for (const type of new Set(budgets.map((b) => b.type))) spend.set(type, await spendInPeriod(this.repositories.usage, orgId, type, now));
    const out: BudgetDto[] = [];
    for (const budget of budgets) {
      const current = spend.get(budget.type) ?? 0;
      const alerts = budget.alerts.map((alert) => ({ ...alert }));
      for (const change of alertChanges(alerts, current, budget.limit)) {
        alerts[change.index].triggered = change.triggered;
        alerts[change.index].triggered_at = change.triggered ? now : null;
        await this.repositories.namedBudgets.setAlertState(orgId, budget._id, change.index, change.triggered, now);
        if (change.triggered) await this.notify(orgId, budget, alerts[change.index].threshold, alerts[change.index].channels, current, now);
      }
      const period = budgetPeriod(budget.type, now);
      out.push({
        id: budget._id,
        name: budget.name,
        type: budget.type,
        limit: budget.limit,
        current: usd(current),
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
      });
    }
    return out;
  }

  private async notify(orgId: OrgId, budget: NamedBudgetEntity, threshold: number, channels: string[], current: number, now: Date): Promise<void> {
    if (channels.length === 0) return;
    const event = createEvent(
      'budget.warning',
      orgId,
      {
        budget_type: budget.type,
        threshold_pct: threshold,
        spent: usd(current),
        budget: budget.limit,
        utilization_pct: round2(utilizationPct(current, budget.limit)),
        timestamp: now.toISOString(),
      },
      EVENT_SOURCES.orgApi,
    );
    if (channels.includes('webhook')) await this.publisher.publish(event);
    else if (channels.includes('slack')) {
      await this.bus
        .queue(QUEUES.chatNotification)
        .add(event.type, { event }, { jobId: event.id })
        .catch((err: unknown) => this.logger.warn({ err, org_id: orgId }, 'budget alert: chat notification not queued'));
    }
    if (channels.includes('email')) {
      this.logger.info({ org_id: orgId, budget_id: budget._id, threshold_pct: threshold, event_id: event.id }, 'budget alert: e-mail notification pending (no mail server configured)');
    }
  }
}

function assertAutoStop(type: BudgetType, autoStop: boolean): void {
  if (autoStop && type !== 'daily') throw orgErrors.validation('auto_stop is only available on daily budgets', 'auto_stop');
}
