import { Inject, Injectable } from '@nestjs/common';
import { BudgetAlert, budgetPeriod, BudgetPeriod, BudgetType, NamedBudgetEntity, OrgId, Repositories, roundUsd, spendInPeriod } from '@svc/domain';
import { createEvent, EVENT_BUS, EVENT_PUBLISHER, EVENT_SOURCES, EventBus, EventPublisher, GatewayEvent, QUEUES } from '@svc/events';
import { LOGGER, Logger } from '@svc/platform';
import { REPOSITORIES } from '@svc/runtime';
import { round2 } from '../common/org-errors';
import { alertChanges, utilizationPct } from './budget-alerts';

/** A named budget with its spend in the current period and its alert states after evaluation. */
export interface EvaluatedBudget {
  budget: NamedBudgetEntity;
  current: number;
  period: BudgetPeriod;
  alerts: BudgetAlert[];
  /** `budget.warning` events published (or queued for the team chat) by this evaluation. */
  notified: GatewayEvent[];
}

/**
 * Evaluates named-budget alerts (SPEC.md "Budget alert", DECISIONS.md "Named budgets"): `current`
 * is the organization's gateway spend in the budget's UTC period, from usage records; each alert
 * is triggered when spend reaches its threshold and reset when spend falls back below it (an alert
 * of an earlier period counts as reset). Every state change is a compare-and-set in the store, so
 * when several evaluators race (replicas of the periodic check, a read of the budget) exactly one
 * wins a transition, and only that one notifies: `webhook` publishes `budget.warning`, `slack`
 * (without `webhook`) queues a team-chat post, `email` is logged as a pending notification.
 */
@Injectable()
export class BudgetEvaluator {
  constructor(
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    @Inject(EVENT_PUBLISHER) private readonly publisher: EventPublisher,
    @Inject(EVENT_BUS) private readonly bus: EventBus,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Evaluates every budget of the organization that has alerts (the periodic check). */
  async evaluateOrganization(orgId: OrgId, now = new Date()): Promise<EvaluatedBudget[]> {
    const budgets = (await this.repositories.namedBudgets.listAll(orgId)).filter((budget) => budget.alerts.length > 0);
    return budgets.length ? this.evaluate(orgId, budgets, now) : [];
  }

  /** Computes `current` once per budget type and moves the alerts that must change. */
  async evaluate(orgId: OrgId, budgets: readonly NamedBudgetEntity[], now = new Date()): Promise<EvaluatedBudget[]> {
    const spend = new Map<BudgetType, number>();
    for (const type of new Set(budgets.map((b) => b.type))) spend.set(type, await spendInPeriod(this.repositories.usage, orgId, type, now));
    const out: EvaluatedBudget[] = [];
    for (const budget of budgets) out.push(await this.evaluateOne(orgId, budget, spend.get(budget.type) ?? 0, now));
    return out;
  }

  private async evaluateOne(orgId: OrgId, budget: NamedBudgetEntity, current: number, now: Date): Promise<EvaluatedBudget> {
    const period = budgetPeriod(budget.type, now);
    let alerts = budget.alerts.map((alert) => ({ ...alert }));
    const notified: GatewayEvent[] = [];
    let lost = false;
    for (const change of alertChanges(alerts, current, budget.limit, period.start)) {
      const alert = alerts[change.index];
      const won = await this.repositories.namedBudgets.transitionAlert(
        orgId,
        budget._id,
        change.index,
        { threshold: alert.threshold, triggered: change.triggered, since: period.start },
        now,
      );
      if (!won) {
        lost = true;
        continue;
      }
      alert.triggered = change.triggered;
      alert.triggered_at = change.triggered ? now : null;
      if (change.triggered) {
        const event = await this.notify(orgId, budget, alert, current, now);
        if (event) notified.push(event);
      }
    }
    // Another evaluator moved an alert first: show what the store holds now.
    if (lost) alerts = (await this.repositories.namedBudgets.findById(orgId, budget._id))?.alerts ?? alerts;
    return { budget, current, period, alerts, notified };
  }

  private async notify(orgId: OrgId, budget: NamedBudgetEntity, alert: BudgetAlert, current: number, now: Date): Promise<GatewayEvent | null> {
    const { channels, threshold } = alert;
    if (channels.length === 0) return null;
    const event = createEvent(
      'budget.warning',
      orgId,
      {
        budget_type: budget.type,
        threshold_pct: threshold,
        spent: roundUsd(current),
        budget: budget.limit,
        utilization_pct: round2(utilizationPct(current, budget.limit)),
        timestamp: now.toISOString(),
        // An organization may have several named budgets: say which one this is.
        budget_id: budget._id,
        budget_name: budget.name,
      },
      EVENT_SOURCES.orgApi,
    ) as GatewayEvent;
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
    this.logger.info({ org_id: orgId, budget_id: budget._id, threshold_pct: threshold, event_id: event.id, channels }, 'budget alert triggered');
    return event;
  }
}
