import { Inject, Injectable } from '@nestjs/common';
import type { OrgId, Patch, Repositories, RunnerEntity, RunnerEventEntity, RunnerEventType, RunnerSessionEntity } from '@svc/domain';
import type { Principal } from '@svc/auth';
import { REPOSITORIES } from '@svc/runtime';
import { invalidState, runnerNotFound, sessionNotFound } from './runner-errors';
import { RUNNER_CLOCK, RunnerClock } from './runner-settings';
import { ENDED_SESSION_STATES, RUNNER_RULES, RunnerOperation, runnerAllows, SESSION_RULES, SessionOperation, sessionAllows } from './state-machine';
import { RunnerStreamHub } from './stream/runner-stream.hub';
import type { OutputStream } from './providers/runner-provider';

/** Who did it, as written in audit events: the key id, the dashboard user id, or `system`. */
export function actorOf(principal: Principal): string {
  return principal.keyId ?? principal.userId ?? principal.kind;
}

export const SYSTEM_ACTOR = 'system';

/** Audit types that are not state transitions (no `state_change` on the stream). */
const NON_TRANSITIONS: ReadonlySet<RunnerEventType> = new Set<RunnerEventType>(['command_executed', 'command_failed', 'policy_denied']);
/** Attempts at a system bump when other operations keep moving the runner's version. */
const BUMP_ATTEMPTS = 5;

/** Audit types after which a runner-level stream is done. */
const RUNNER_ENDINGS: ReadonlySet<RunnerEventType> = new Set<RunnerEventType>(['runner_terminated', 'runner_failed']);

export interface AuditInput {
  /** The runner as it is after the change (its state and version are recorded). */
  runner: RunnerEntity;
  type: RunnerEventType;
  actor: string;
  session?: RunnerSessionEntity | null;
  detail?: Record<string, unknown>;
}

/**
 * Reads and writes of runner state for the use cases: 404s for unknown ids, optimistic moves that
 * turn a lost race or a wrong state into 409 `invalid_state`, and audit events that are also
 * published on the runner stream (`state_change`, and `done` when a session or the runner ends).
 */
@Injectable()
export class RunnerRecords {
  constructor(
    @Inject(REPOSITORIES) readonly repos: Repositories,
    readonly hub: RunnerStreamHub,
    @Inject(RUNNER_CLOCK) readonly clock: RunnerClock,
  ) {}

  now(): Date {
    return this.clock.now();
  }

  async loadRunner(orgId: OrgId, runnerId: string): Promise<RunnerEntity> {
    const runner = await this.repos.runners.findById(orgId, runnerId);
    if (!runner) throw runnerNotFound(runnerId);
    return runner;
  }

  /** A session of this runner (404 `session_not_found` for another runner's or an unknown one). */
  async loadSession(orgId: OrgId, runnerId: string, sessionId: string): Promise<RunnerSessionEntity> {
    const session = await this.repos.runnerSessions.findById(orgId, sessionId);
    if (!session || session.runner_id !== runnerId) throw sessionNotFound(sessionId);
    return session;
  }

  /** The runner's live session (starting, active, stopping), if any. */
  liveSession(orgId: OrgId, runner: RunnerEntity): Promise<RunnerSessionEntity | null> {
    return this.repos.runnerSessions.findLive(orgId, runner._id);
  }

  /** 409 unless the runner's state allows the operation. */
  assertRunner(runner: RunnerEntity, operation: RunnerOperation, what: string = operation): void {
    if (!runnerAllows(operation, runner.state)) {
      throw invalidState(`Runner ${runner._id} is ${runner.state}; ${what} needs it ${RUNNER_RULES[operation].from.join(' or ')}`);
    }
  }

  assertSession(session: RunnerSessionEntity, operation: SessionOperation, what: string = operation): void {
    if (!sessionAllows(operation, session.state)) {
      throw invalidState(`Session ${session._id} is ${session.state}; ${what} needs it ${SESSION_RULES[operation].from.join(' or ')}`);
    }
  }

  /**
   * Applies an operation to the runner at the version it was read at, bumping the version. 409 when
   * its state does not allow it, or when another operation changed the runner first.
   */
  async moveRunner(orgId: OrgId, runner: RunnerEntity, operation: RunnerOperation, patch: Patch<Omit<RunnerEntity, 'version'>> = {}): Promise<RunnerEntity> {
    this.assertRunner(runner, operation);
    const to = RUNNER_RULES[operation].to;
    const moved = await this.repos.runners.updateVersioned(
      orgId,
      runner._id,
      runner.version,
      { ...patch, ...(to ? { state: to } : {}) },
      [...RUNNER_RULES[operation].from],
      this.now(),
    );
    if (!moved) throw invalidState(`Runner ${runner._id} changed while this ${operation} was under way (version ${runner.version} is stale); the other operation won`);
    return moved;
  }

  /**
   * One version bump with no state change (and an optional patch), for a transition the system
   * records whatever else happens (a session that failed, expired or was terminated): it applies
   * to the runner's current version, re-reading it when another operation moved it first. Null
   * when the runner is gone (or, under extreme contention, could not be bumped).
   */
  async bumpRunner(orgId: OrgId, runner: RunnerEntity, patch: Patch<Omit<RunnerEntity, 'version'>> = {}): Promise<RunnerEntity | null> {
    let current: RunnerEntity | null = runner;
    for (let attempt = 0; attempt < BUMP_ATTEMPTS && current; attempt += 1) {
      const moved = await this.repos.runners.updateVersioned(orgId, current._id, current.version, patch, [current.state], this.now());
      if (moved) return moved;
      current = await this.repos.runners.findById(orgId, current._id);
    }
    return null;
  }

  /** Moves a session from one of the operation's states; 409 when it is no longer in one. */
  async moveSession(orgId: OrgId, session: RunnerSessionEntity, operation: SessionOperation, patch: Patch<RunnerSessionEntity> = {}): Promise<RunnerSessionEntity> {
    this.assertSession(session, operation);
    const to = SESSION_RULES[operation].to ?? session.state;
    const moved = await this.repos.runnerSessions.transition(orgId, session._id, [...SESSION_RULES[operation].from], { ...patch, state: to }, this.now());
    if (!moved) throw invalidState(`Session ${session._id} changed while this ${operation} was under way; the other operation won`);
    return moved;
  }

  /** Writes one audit event and tells the stream's followers. */
  async audit(orgId: OrgId, input: AuditInput): Promise<RunnerEventEntity> {
    const { runner, session } = input;
    const detail: Record<string, unknown> = {
      ...(input.detail ?? {}),
      runner_state: runner.state,
      version: runner.version,
      ...(session ? { session_state: session.state } : {}),
    };
    const event = await this.repos.runnerEvents.append(
      orgId,
      { runner_id: runner._id, session_id: session?._id ?? null, event_type: input.type, actor: input.actor, detail },
      this.now(),
    );
    if (!NON_TRANSITIONS.has(input.type)) {
      this.publish('state_change', runner._id, session?._id ?? null, {
        event_id: event._id,
        event_type: input.type,
        runner_id: runner._id,
        session_id: session?._id ?? null,
        runner_state: runner.state,
        session_state: session?.state ?? null,
        version: runner.version,
        timestamp: event.timestamp.toISOString(),
      });
    }
    if (session && ENDED_SESSION_STATES.includes(session.state)) {
      this.publish('done', runner._id, session._id, { runner_id: runner._id, session_id: session._id, reason: input.type });
    }
    if (RUNNER_ENDINGS.has(input.type) || (input.type === 'session_expired' && runner.state === 'stopped')) {
      this.publish('done', runner._id, null, { runner_id: runner._id, session_id: null, reason: input.type });
    }
    return event;
  }

  output(runnerId: string, sessionId: string, commandId: string, stream: OutputStream, text: string): void {
    this.publish('output', runnerId, sessionId, { runner_id: runnerId, session_id: sessionId, command_id: commandId, stream, data: text });
  }

  error(runnerId: string, sessionId: string | null, code: string, message: string): void {
    this.publish('error', runnerId, sessionId, { runner_id: runnerId, session_id: sessionId, code, message, timestamp: this.now().toISOString() });
  }

  private publish(event: 'output' | 'state_change' | 'error' | 'done', runnerId: string, sessionId: string | null, data: Record<string, unknown>): void {
    this.hub.publish({ event, runnerId, sessionId, data });
  }
}
