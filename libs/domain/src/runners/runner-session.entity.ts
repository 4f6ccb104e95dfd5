import { defineCollection } from '../store/types';

export const SESSION_STATES = ['starting', 'active', 'stopping', 'expired', 'failed', 'terminated'] as const;
export type SessionState = (typeof SESSION_STATES)[number];
/** States in which a session is still alive. */
export const LIVE_SESSION_STATES: SessionState[] = ['starting', 'active', 'stopping'];

export interface RunnerSessionEntity {
  /** `ses_...` */
  _id: string;
  org_id: string;
  runner_id: string;
  state: SessionState;
  started_at: Date;
  /** When its TTL elapses (session `expired`, runner `stopped`). */
  expires_at: Date | null;
  ended_at: Date | null;
  budget_usd: number;
  /** Gateway spend charged to the session (stage 3). */
  spent_usd: number;
  /** SHA-256 hex of the session's runner token (`svc_rt_...`); the token itself is never stored. */
  token_hash: string | null;
  created_at: Date;
  updated_at: Date;
}

export const RUNNER_SESSIONS = defineCollection<RunnerSessionEntity>('runner_sessions', [
  { fields: { org_id: 1, runner_id: 1, started_at: -1 }, comment: 'sessions of a runner, latest first; its live session' },
  { fields: { state: 1, expires_at: 1 }, comment: 'TTL sweep: live sessions past expires_at, all orgs' },
  {
    fields: { token_hash: 1 },
    partialFilterExpression: { token_hash: { $type: 'string' } },
    comment: 'gateway authentication of a runner token (svc_rt_) by its hash, all orgs',
  },
]);
