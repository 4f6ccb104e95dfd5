import { Inject, Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { asOrgId, Repositories } from '@svc/domain';
import { APP_CONFIG, AppConfig, LOGGER, Logger } from '@svc/platform';
import { REPOSITORIES } from '@svc/runtime';
import { BudgetEvaluator } from './budget-evaluator';

/** Usage older than this before the previous check is looked at again (late writes, clock skew). */
const OVERLAP_MS = 15 * 60_000;
/** The first check after start looks this far back (spend that accrued while no worker ran). */
const FIRST_LOOKBACK_MS = 24 * 3_600_000;

export interface BudgetAlertCheck {
  at: Date;
  organizations: number;
  notified: number;
}

/**
 * Evaluates named-budget alerts as spend accrues, so `budget.warning` goes out without anyone
 * reading the budget: every `BUDGET_ALERT_CHECK_INTERVAL_MS` (an unref'd timer; runs never
 * overlap; 0 = off) it evaluates the budgets of each organization with usage since the previous
 * check (with an overlap). A threshold can only be newly crossed after new spend, so these are
 * the only organizations that can have a new alert. Replicas may all run it: each alert
 * transition is a compare-and-set in the store, so one notification per alert and period.
 */
@Injectable()
export class BudgetAlertWorker implements OnModuleInit, OnModuleDestroy {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<BudgetAlertCheck> | null = null;
  private lastRun: BudgetAlertCheck | null = null;
  private readonly intervalMs: number;

  constructor(
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    private readonly evaluator: BudgetEvaluator,
    @Inject(APP_CONFIG) config: Pick<AppConfig, 'BUDGET_ALERT_CHECK_INTERVAL_MS'>,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.intervalMs = config.BUDGET_ALERT_CHECK_INTERVAL_MS;
  }

  onModuleInit(): void {
    if (this.intervalMs <= 0) return;
    this.timer = setInterval(() => void this.check(), this.intervalMs);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** The last completed check (for status and tests). */
  get lastCheck(): BudgetAlertCheck | null {
    return this.lastRun;
  }

  /** One check at `now` (joins the one under way, if any). Never rejects. */
  check(now: Date = new Date()): Promise<BudgetAlertCheck> {
    this.running ??= this.run(now)
      .catch((err: unknown) => {
        this.logger.warn({ err }, 'budget alert check failed');
        return { at: now, organizations: 0, notified: 0 };
      })
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  private async run(now: Date): Promise<BudgetAlertCheck> {
    const since = this.lastRun ? new Date(this.lastRun.at.getTime() - OVERLAP_MS) : new Date(now.getTime() - FIRST_LOOKBACK_MS);
    const orgIds = await this.repositories.usage.listOrgIdsWithUsageSince(since);
    let notified = 0;
    for (const orgId of orgIds) {
      try {
        for (const budget of await this.evaluator.evaluateOrganization(asOrgId(orgId), now)) notified += budget.notified.length;
      } catch (err) {
        this.logger.warn({ err, org_id: orgId }, 'budget alert check of an organization failed');
      }
      // Let the process's I/O through between organizations (the embedded store computes synchronously).
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    this.lastRun = { at: now, organizations: orgIds.length, notified };
    return this.lastRun;
  }
}
