import { Injectable } from '@nestjs/common';
import { asOrgId, RunnerEntity, RunnerSessionEntity } from '@svc/domain';
import { RunnerFailures } from '../runner-failures';
import { RunnerRecords, SYSTEM_ACTOR } from '../runner-records';
import { runnerAllows, sessionFrom } from '../state-machine';

/** Attempts at stopping the runner when other operations keep moving its version. */
const STOP_ATTEMPTS = 5;

/**
 * TTL elapsed (DECISIONS.md): the session → `expired` and, when it is the runner's session, the
 * runner `running` → `stopped` (one `session_expired` event and one version bump record both, with
 * `runner_state`; a session that was not the runner's still bumps the version once).
 * Run by the sweeper; idempotent across replicas (the session moves once).
 */
@Injectable()
export class ExpireSessionUseCase {
  constructor(
    private readonly records: RunnerRecords,
    private readonly failures: RunnerFailures,
  ) {}

  /** True when this call expired the session. */
  async execute(session: RunnerSessionEntity): Promise<boolean> {
    const orgId = asOrgId(session.org_id);
    const { repos } = this.records;
    const now = this.records.now();
    const expired = await repos.runnerSessions.transition(orgId, session._id, sessionFrom('expire'), { state: 'expired', ended_at: now }, now);
    if (!expired) return false;
    let runner: RunnerEntity | null = await repos.runners.findById(orgId, session.runner_id);
    let moved = false;
    for (let attempt = 0; attempt < STOP_ATTEMPTS && runner && this.ownsRunner(runner, session); attempt += 1) {
      const stopped = await repos.runners.updateVersioned(orgId, runner._id, runner.version, { state: 'stopped', active_session_id: null }, ['running'], now);
      if (stopped) {
        runner = stopped;
        moved = true;
        break;
      }
      runner = await repos.runners.findById(orgId, session.runner_id);
    }
    // A session that was not holding the runner still moved: its event gets its own version.
    if (runner && !moved) runner = await this.records.bumpRunner(orgId, runner);
    if (!runner) return true;
    await this.records.audit(orgId, {
      runner,
      session: expired,
      type: 'session_expired',
      actor: SYSTEM_ACTOR,
      detail: { expires_at: session.expires_at?.toISOString() ?? null, was: session.state },
    });
    await this.failures.stopQuietly(runner, session._id);
    return true;
  }

  /** Whether the expiring session is the one holding the runner in `running`. */
  private ownsRunner(runner: RunnerEntity, session: RunnerSessionEntity): boolean {
    if (!runnerAllows('expire', runner.state)) return false;
    return runner.active_session_id === session._id || runner.active_session_id === null;
  }
}
