import { Inject, Injectable } from '@nestjs/common';
import { LIVE_SESSION_STATES, OrgId, RunnerEntity } from '@svc/domain';
import { LOGGER, Logger } from '@svc/platform';
import { RunnerProviderRegistry } from '../providers/provider-registry';
import { RunnerFailures, runnerRef } from '../runner-failures';
import { RunnerRecords, SYSTEM_ACTOR } from '../runner-records';
import { sessionFrom } from '../state-machine';

export interface TerminateOptions {
  /** Extra audit detail (BYOVM deregistration). */
  detail?: Record<string, unknown>;
}

/**
 * terminate: any state but `terminated` → `terminated` in one optimistic move from the version read
 * (a concurrent operation loses with 409), then every live session → `terminated`
 * (`session_terminated` each), the provider frees what it held (best effort: a provider failure is
 * logged and noted, the runner stays terminated), then `runner_terminated`. Each event has its own
 * version: the first one written carries the move's bump, each later one bumps once more (a
 * terminated runner can change no other way). A self-hosted runner's machine id is released.
 */
@Injectable()
export class TerminateRunnerUseCase {
  constructor(
    private readonly records: RunnerRecords,
    private readonly providers: RunnerProviderRegistry,
    private readonly failures: RunnerFailures,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async execute(orgId: OrgId, actor: string, runnerId: string, options: TerminateOptions = {}): Promise<RunnerEntity> {
    const runner = await this.records.loadRunner(orgId, runnerId);
    const from = runner.state;
    let current = await this.records.moveRunner(orgId, runner, 'terminate', { active_session_id: null, machine_id: null });
    /** Whether the last bump still waits for its event (the terminate move's bump does). */
    let bumpUnrecorded = true;
    const versioned = async (): Promise<RunnerEntity> => {
      if (bumpUnrecorded) {
        bumpUnrecorded = false;
        return current;
      }
      current = (await this.records.bumpRunner(orgId, current)) ?? current;
      return current;
    };
    const { repos } = this.records;
    const sessions = await repos.runnerSessions.listByRunner(orgId, runner._id, 1000);
    for (const session of sessions.filter((s) => LIVE_SESSION_STATES.includes(s.state))) {
      const ended = await repos.runnerSessions.transition(orgId, session._id, sessionFrom('terminate'), { state: 'terminated', ended_at: this.records.now() }, this.records.now());
      if (!ended) continue;
      await this.records.audit(orgId, { runner: await versioned(), session: ended, type: 'session_terminated', actor: SYSTEM_ACTOR, detail: { reason: 'runner_terminated' } });
      await this.failures.stopQuietly(runner, session._id);
    }
    const provider = this.providers.find(runner.provider_type);
    const providerFailure = provider
      ? await provider.terminate(runnerRef(runner)).then(
          () => null,
          (err: unknown) => {
            this.logger.warn({ err, runner_id: runner._id }, 'runner provider could not terminate a runner');
            return err instanceof Error ? err.message : String(err);
          },
        )
      : null;
    const terminated = await versioned();
    await this.records.audit(orgId, {
      runner: terminated,
      type: 'runner_terminated',
      actor,
      detail: { from, ...(runner.machine_id ? { machine_id: runner.machine_id } : {}), ...(providerFailure ? { provider_error: providerFailure } : {}), ...options.detail },
    });
    return terminated;
  }
}
