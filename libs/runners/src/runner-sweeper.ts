import { Inject, Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { asOrgId } from '@svc/domain';
import { LOGGER, Logger, PeriodicTask } from '@svc/platform';
import { RunnerFailures } from './runner-failures';
import { RunnerRecords } from './runner-records';
import { RUNNER_SETTINGS, RunnerSettings } from './runner-settings';
import { ExpireSessionUseCase } from './usecases/expire-session.usecase';

/** Sessions expired per page, and pages per sweep (the next tick takes the rest). */
const PAGE = 100;
const MAX_PAGES = 10;
/** A runner still `provisioning` after this long was left behind by a crash: it is failed. */
export const STUCK_PROVISIONING_MS = 10 * 60_000;

export interface SweepResult {
  expired: number;
  failed: number;
}

/**
 * Makes TTLs hold, also across restarts: once at start-up (before the service listens) and then
 * every RUNNER_SWEEP_INTERVAL_MS (an unref'd timer), live sessions past `expires_at` are expired
 * and their runners stopped, through the domain's cross-tenant sweep queries. Runners stuck in
 * `provisioning` are failed. Sweeps never overlap; several replicas may sweep, each change happens once.
 */
@Injectable()
export class RunnerSweeper implements OnModuleInit, OnModuleDestroy {
  private readonly task: PeriodicTask<SweepResult>;

  constructor(
    private readonly records: RunnerRecords,
    private readonly expire: ExpireSessionUseCase,
    private readonly failures: RunnerFailures,
    @Inject(RUNNER_SETTINGS) private readonly settings: RunnerSettings,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.task = new PeriodicTask((err) => {
      this.logger.warn({ err }, 'runner sweep failed');
      return { expired: 0, failed: 0 };
    });
  }

  async onModuleInit(): Promise<void> {
    await this.sweep();
    this.task.every(this.settings.sweepIntervalMs, () => this.run());
  }

  onModuleDestroy(): Promise<void> {
    return this.task.stop();
  }

  /** One sweep (joins the one under way, if any). Never rejects. */
  sweep(): Promise<SweepResult> {
    return this.task.once(() => this.run());
  }

  private async run(): Promise<SweepResult> {
    const { repos } = this.records;
    const now = this.records.now();
    let expired = 0;
    for (let page = 0; page < MAX_PAGES; page += 1) {
      const due = await repos.runnerSessions.listExpiredLiveAcrossOrgs(now, PAGE);
      for (const session of due) if (await this.expire.execute(session)) expired += 1;
      if (due.length < PAGE) break;
    }
    let failed = 0;
    const stuck = await repos.runners.listInStateAcrossOrgs(['provisioning'], new Date(now.getTime() - STUCK_PROVISIONING_MS), PAGE);
    for (const runner of stuck) {
      await this.failures.fail(asOrgId(runner.org_id), runner._id, null, new Error('provisioning did not complete (the service restarted or the provider never answered)'));
      failed += 1;
    }
    if (expired || failed) this.logger.info({ expired, failed }, 'runner sweep');
    return { expired, failed };
  }
}
