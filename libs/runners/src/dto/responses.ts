import type { RunnerCommandEntity, RunnerEntity, RunnerEventEntity, RunnerSessionEntity, RunnerState, SessionState } from '@svc/domain';

/** SPEC.md "Runner, session, command, event": the response shapes, field for field. */
export interface SessionResponse {
  session_id: string;
  runner_id: string;
  state: SessionState;
  started_at: string;
  expires_at: string | null;
}

/** The start response: the session plus its credentials, shown once (only their hash is stored). */
export interface StartedSessionResponse extends SessionResponse {
  /** `svc_rt_...`: a gateway key for LLM calls made from the session, valid while it is active. */
  runner_token: string;
  /** The `X-Runner-Proof` token bound to this runner and session. */
  runner_proof: string;
}

export interface RunnerResponse {
  runner_id: string;
  org_id: string;
  state: RunnerState;
  provider_type: string;
  tool_profile: string;
  ttl_seconds: number;
  version: number;
  created_at: string;
  updated_at: string;
  /** The live session; omitted in lists. */
  session?: SessionResponse | null;
}

export interface RunnerListResponse {
  runners: RunnerResponse[];
  total: number;
  limit: number;
  offset: number;
}

export interface CommandResponse {
  command_id: string;
  session_id: string;
  exit_code: number | null;
  stdout: string | null;
  stderr: string | null;
}

export interface EventResponse {
  event_id: string;
  event_type: string;
  runner_id: string;
  session_id: string | null;
  actor: string;
  detail: Record<string, unknown>;
  timestamp: string;
}

export interface RunnerEventsResponse {
  runner_id: string;
  events: EventResponse[];
  total: number;
}

export function toSessionResponse(session: RunnerSessionEntity): SessionResponse {
  return {
    session_id: session._id,
    runner_id: session.runner_id,
    state: session.state,
    started_at: session.started_at.toISOString(),
    expires_at: session.expires_at ? session.expires_at.toISOString() : null,
  };
}

/** With `session` given (even null) the response carries it; without, the field is left out. */
export function toRunnerResponse(runner: RunnerEntity, session?: RunnerSessionEntity | null): RunnerResponse {
  return {
    runner_id: runner._id,
    org_id: runner.org_id,
    state: runner.state,
    provider_type: runner.provider_type,
    tool_profile: runner.tool_profile,
    ttl_seconds: runner.ttl_seconds,
    version: runner.version,
    created_at: runner.created_at.toISOString(),
    updated_at: runner.updated_at.toISOString(),
    ...(session === undefined ? {} : { session: session ? toSessionResponse(session) : null }),
  };
}

export function toCommandResponse(command: RunnerCommandEntity): CommandResponse {
  return {
    command_id: command._id,
    session_id: command.session_id,
    exit_code: command.exit_code,
    stdout: command.stdout,
    stderr: command.stderr,
  };
}

export function toEventResponse(event: RunnerEventEntity): EventResponse {
  return {
    event_id: event._id,
    event_type: event.event_type,
    runner_id: event.runner_id,
    session_id: event.session_id,
    actor: event.actor,
    detail: event.detail,
    timestamp: event.timestamp.toISOString(),
  };
}
