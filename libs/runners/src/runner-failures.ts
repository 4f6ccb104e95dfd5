import { Inject, Injectable } from '@nestjs/common';
import type { OrgId, RunnerEntity } from '@svc/domain';
import { createEvent, EVENT_PUBLISHER, EVENT_SOURCES, EventPublisher, truncateError } from '@svc/events';
import { LOGGER, Logger } from '@svc/platform';
import { RunnerProviderRegistry } from './providers/provider-registry';
import { RunnerRef } from './providers/runner-provider';
import { RunnerRecords, SYSTEM_ACTOR } from './runner-records';
import { runnerAllows, sessionFrom } from './state-machine';

/** What a provider needs to know of a runner. */
export function runnerRef(runner: RunnerEntity): RunnerRef {
  return {
    orgId: runner.org_id,
    runnerId: runner._id,
    toolProfile: runner.tool_profile,
    imageRef: runner.image_ref,
    runtimeVersion: runner.runtime_version,
  };
}

/** Attempts at the runner's versioned update when other operations keep moving it. */
const FAIL_ATTEMPTS = 5;

/**
 * The provider-error path of DECISIONS.md: the session (if any) becomes `failed` (`session_failed`,
 * one version bump), the runner `failed` (`runner_failed` with the error, another bump),
 * `agent.failed` is published, and the runner stream gets an `error` then `done`.
 */
@Injectable()
export class RunnerFailures {
  constructor(
    private readonly records: RunnerRecords,
    private readonly providers: RunnerProviderRegistry,
    @Inject(EVENT_PUBLISHER) private readonly publisher: EventPublisher,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async fail(orgId: OrgId, runnerId: string, sessionId: string | null, error: unknown): Promise<void> {
    const message = truncateError(error instanceof Error ? error.message : String(error));
    const { repos } = this.records;
    const now = this.records.now();
    this.records.error(runnerId, sessionId, 'provider_error', message);
    let runner = await repos.runners.findById(orgId, runnerId);
    if (!runner) return;
    if (sessionId) {
      const failed = await repos.runnerSessions.transition(orgId, sessionId, sessionFrom('fail'), { state: 'failed', ended_at: now }, now);
      if (failed) {
        runner = await this.records.bumpRunner(orgId, runner);
        if (!runner) return;
        await this.records.audit(orgId, { runner, session: failed, type: 'session_failed', actor: SYSTEM_ACTOR, detail: { error: message } });
      }
    }
    for (let attempt = 0; attempt < FAIL_ATTEMPTS && runner && runnerAllows('fail', runner.state); attempt += 1) {
      const from = runner.state;
      const moved = await repos.runners.updateVersioned(
        orgId,
        runner._id,
        runner.version,
        { state: 'failed', error: message, active_session_id: null },
        [from],
        now,
      );
      if (moved) {
        await this.records.audit(orgId, { runner: moved, type: 'runner_failed', actor: SYSTEM_ACTOR, detail: { error: message, from } });
        await this.publisher.publish(
          createEvent(
            'agent.failed',
            orgId,
            { runner_id: moved._id, runner_name: moved.name ?? moved._id, session_id: sessionId, error: message, timestamp: now.toISOString() },
            EVENT_SOURCES.runnerControlPlane,
            { time: now },
          ),
        );
        runner = moved;
        break;
      }
      runner = await repos.runners.findById(orgId, runnerId);
    }
    if (sessionId && runner) await this.stopQuietly(runner, sessionId);
  }

  /** Frees a session's resources at the provider; a failure here is logged, never thrown. */
  async stopQuietly(runner: RunnerEntity, sessionId: string): Promise<void> {
    const provider = this.providers.find(runner.provider_type);
    if (!provider) return;
    await provider
      .stopSession({ ...runnerRef(runner), sessionId })
      .catch((err: unknown) => this.logger.warn({ err, runner_id: runner._id, session_id: sessionId }, 'runner provider could not stop a session'));
  }
}
