import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { RUNNER_STATES, SESSION_STATES, TOOL_PROFILES } from '@svc/domain';
import type { RunnerCommandEntity, RunnerEntity, RunnerEventEntity, RunnerSessionEntity, RunnerState, SessionState } from '@svc/domain';

/**
 * SPEC.md "Runner, session, command, event": the response shapes, field for field. Classes so the
 * OpenAPI document describes them; the controllers return plain objects of these shapes.
 */
export class SessionResponse {
  @ApiProperty()
  session_id!: string;

  @ApiProperty()
  runner_id!: string;

  @ApiProperty({ enum: SESSION_STATES })
  state!: SessionState;

  @ApiProperty({ format: 'date-time' })
  started_at!: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  expires_at!: string | null;
}

/** The start response: the session plus its credentials, shown once (only their hash is stored). */
export class StartedSessionResponse extends SessionResponse {
  /** `svc_rt_...`: a gateway key for LLM calls made from the session, valid while it is active. */
  @ApiProperty({ description: '`svc_rt_...`: a gateway key for LLM calls made from the session, valid while it is active; shown once' })
  runner_token!: string;

  /** The `X-Runner-Proof` token bound to this runner and session. */
  @ApiProperty({ description: 'The `X-Runner-Proof` token bound to this runner and session; shown once' })
  runner_proof!: string;
}

export class RunnerResponse {
  @ApiProperty()
  runner_id!: string;

  @ApiProperty()
  org_id!: string;

  @ApiProperty({ enum: RUNNER_STATES })
  state!: RunnerState;

  @ApiProperty()
  provider_type!: string;

  @ApiProperty({ enum: TOOL_PROFILES })
  tool_profile!: string;

  @ApiProperty({ type: 'integer' })
  ttl_seconds!: number;

  @ApiProperty({ type: 'integer', description: 'Bumped by every transition' })
  version!: number;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time' })
  updated_at!: string;

  /** The live session; omitted in lists. */
  @ApiPropertyOptional({ type: () => SessionResponse, nullable: true, description: 'The live session (null when none); omitted in lists' })
  session?: SessionResponse | null;
}

export class RunnerListResponse {
  @ApiProperty({ type: () => [RunnerResponse] })
  runners!: RunnerResponse[];

  @ApiProperty({ type: 'integer' })
  total!: number;

  @ApiProperty({ type: 'integer' })
  limit!: number;

  @ApiProperty({ type: 'integer' })
  offset!: number;
}

export class CommandResponse {
  @ApiProperty()
  command_id!: string;

  @ApiProperty()
  session_id!: string;

  @ApiProperty({ type: 'integer', nullable: true })
  exit_code!: number | null;

  @ApiProperty({ type: String, nullable: true })
  stdout!: string | null;

  @ApiProperty({ type: String, nullable: true })
  stderr!: string | null;
}

export class EventResponse {
  @ApiProperty()
  event_id!: string;

  @ApiProperty({ description: 'SPEC.md "Runner audit events"' })
  event_type!: string;

  @ApiProperty()
  runner_id!: string;

  @ApiProperty({ type: String, nullable: true })
  session_id!: string | null;

  @ApiProperty()
  actor!: string;

  @ApiProperty({ type: 'object', additionalProperties: true })
  detail!: Record<string, unknown>;

  @ApiProperty({ format: 'date-time' })
  timestamp!: string;
}

export class RunnerEventsResponse {
  @ApiProperty()
  runner_id!: string;

  @ApiProperty({ type: () => [EventResponse] })
  events!: EventResponse[];

  @ApiProperty({ type: 'integer' })
  total!: number;
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
