import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { RUNNER_EVENT_TYPES, RUNNER_STATES, SESSION_STATES } from '@svc/domain';
import type { RunnerStreamEventName } from './runner-stream.hub';

const TIMESTAMP: SchemaObject = { type: 'string', format: 'date-time' };
const SESSION_ID: SchemaObject = { type: 'string', nullable: true, description: 'null when the stream follows the whole runner' };
const STATES = {
  runner_state: { type: 'string', enum: [...RUNNER_STATES] },
  session_state: { type: 'string', enum: [...SESSION_STATES], nullable: true },
  version: { type: 'integer', description: 'the runner record version' },
  timestamp: TIMESTAMP,
} satisfies Record<string, SchemaObject>;

/**
 * The JSON `data` of each event of `GET /gateway/admin/runners/{runner_id}/stream` (SPEC.md "Runner
 * stream", docs/runners.md "Stream"), by event name. Documentation only: RunnerStreamService and
 * RunnerRecords build the events.
 */
export const RUNNER_STREAM_EVENTS: Record<RunnerStreamEventName, SchemaObject> = {
  state_change: {
    description: 'First a snapshot (`snapshot: true`), then one per runner or session transition',
    oneOf: [
      {
        type: 'object',
        required: ['snapshot', 'runner_id', 'session_id', 'runner_state', 'session_state', 'version', 'timestamp'],
        properties: { snapshot: { type: 'boolean', enum: [true] }, runner_id: { type: 'string' }, session_id: SESSION_ID, ...STATES },
      },
      {
        type: 'object',
        required: ['event_id', 'event_type', 'runner_id', 'session_id', 'runner_state', 'session_state', 'version', 'timestamp'],
        properties: {
          event_id: { type: 'string', description: 'the audit event (`GET /{runner_id}/events`)' },
          event_type: { type: 'string', enum: [...RUNNER_EVENT_TYPES] },
          runner_id: { type: 'string' },
          session_id: SESSION_ID,
          ...STATES,
        },
      },
    ],
  },
  output: {
    type: 'object',
    description: 'Command output as the command writes it (within the output cap)',
    required: ['runner_id', 'session_id', 'command_id', 'stream', 'data'],
    properties: { runner_id: { type: 'string' }, session_id: { type: 'string' }, command_id: { type: 'string' }, stream: { type: 'string', enum: ['stdout', 'stderr'] }, data: { type: 'string' } },
  },
  heartbeat: {
    type: 'object',
    description: 'Keep-alive every RUNNER_STREAM_HEARTBEAT_MS (15 s)',
    required: ['runner_id', 'timestamp'],
    properties: { runner_id: { type: 'string' }, timestamp: TIMESTAMP },
  },
  error: {
    type: 'object',
    description: 'The runner provider failed',
    required: ['runner_id', 'session_id', 'code', 'message', 'timestamp'],
    properties: { runner_id: { type: 'string' }, session_id: SESSION_ID, code: { type: 'string', example: 'provider_error' }, message: { type: 'string' }, timestamp: TIMESTAMP },
  },
  done: {
    type: 'object',
    description: 'The last event: the server then ends the response',
    required: ['runner_id', 'session_id', 'reason'],
    properties: {
      runner_id: { type: 'string' },
      session_id: SESSION_ID,
      reason: { type: 'string', description: 'what ended it: the ending event type (`session_terminated`, `session_expired`, `session_failed`, `runner_terminated`, ...), `session_<state>` or `runner_<state>` for one already ended, or `shutdown`' },
    },
  },
};

/** The 200 `content` of the stream: SSE text, with each event's `data` schema under `x-sse-events`. */
export const RUNNER_STREAM_CONTENT = {
  'text/event-stream': {
    schema: {
      type: 'string',
      description:
        'Server-Sent Events, each `id: <n>\\nevent: <name>\\ndata: <json>\\n\\n`: `state_change` (a snapshot first, then each transition), `output` (command output), ' +
        '`heartbeat` (every 15 s), `error` (the provider failed) and `done` (the last; the response then ends). No replay: `Last-Event-ID` is ignored.',
    },
    'x-sse-events': RUNNER_STREAM_EVENTS,
  },
};
