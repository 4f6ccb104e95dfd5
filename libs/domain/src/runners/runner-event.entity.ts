import { defineCollection } from '../store/types';

/** Audit event types of runners (SPEC.md "Runner audit events"). */
export const RUNNER_EVENT_TYPES = [
  'runner_created',
  'runner_provisioning',
  'runner_ready',
  'runner_failed',
  'runner_terminated',
  'session_starting',
  'session_active',
  'session_stopping',
  'session_expired',
  'session_failed',
  'session_terminated',
  'command_executed',
  'command_failed',
  'policy_denied',
] as const;
export type RunnerEventType = (typeof RUNNER_EVENT_TYPES)[number];

export interface RunnerEventEntity {
  /** `rev_...` */
  _id: string;
  org_id: string;
  runner_id: string;
  session_id: string | null;
  event_type: RunnerEventType;
  actor: string;
  detail: Record<string, unknown>;
  timestamp: Date;
}

export const RUNNER_EVENTS = defineCollection<RunnerEventEntity>('runner_events', [
  { fields: { org_id: 1, runner_id: 1, timestamp: -1 }, comment: 'audit events of a runner, newest first' },
]);
