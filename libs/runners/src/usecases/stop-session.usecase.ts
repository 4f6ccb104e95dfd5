import { Injectable } from '@nestjs/common';
import type { OrgId, RunnerSessionEntity } from '@svc/domain';
import { RunnerProviderRegistry } from '../providers/provider-registry';
import { invalidState, providerError } from '../runner-errors';
import { RunnerFailures, runnerRef } from '../runner-failures';
import { RunnerRecords, SYSTEM_ACTOR } from '../runner-records';

/**
 * stop: the active session → `stopping` (`session_stopping`), the provider stops it, → `terminated`
 * (`session_terminated`), and the runner `running` → `ready` (`runner_ready`). Each step moves the
 * runner's version, so a concurrent stop, start or terminate loses with 409 `invalid_state`.
 */
@Injectable()
export class StopSessionUseCase {
  constructor(
    private readonly records: RunnerRecords,
    private readonly providers: RunnerProviderRegistry,
    private readonly failures: RunnerFailures,
  ) {}

  async execute(orgId: OrgId, actor: string, runnerId: string, sessionId: string): Promise<RunnerSessionEntity> {
    const runner = await this.records.loadRunner(orgId, runnerId);
    const session = await this.records.loadSession(orgId, runnerId, sessionId);
    this.records.assertSession(session, 'stop');
    this.records.assertRunner(runner, 'stop');
    if (runner.active_session_id !== session._id) throw invalidState(`Session ${session._id} is not the active session of runner ${runner._id}`);
    const provider = this.providers.get(runner.provider_type);

    const holding = await this.records.moveRunner(orgId, runner, 'session_change');
    const stopping = await this.records.moveSession(orgId, session, 'stop');
    await this.records.audit(orgId, { runner: holding, session: stopping, type: 'session_stopping', actor });
    try {
      await provider.stopSession({ ...runnerRef(runner), sessionId: session._id });
    } catch (error) {
      await this.failures.fail(orgId, runner._id, session._id, error);
      throw providerError(provider.type, runner._id, (error as Error).message);
    }
    const ended = await this.records.moveSession(orgId, stopping, 'stopped', { ended_at: this.records.now() });
    const recorded = await this.records.moveRunner(orgId, holding, 'session_change');
    await this.records.audit(orgId, { runner: recorded, session: ended, type: 'session_terminated', actor: SYSTEM_ACTOR, detail: { reason: 'stopped' } });
    const ready = await this.records.moveRunner(orgId, recorded, 'stop', { active_session_id: null });
    await this.records.audit(orgId, { runner: ready, type: 'runner_ready', actor: SYSTEM_ACTOR, detail: { after_session: session._id } });
    return ended;
  }
}
