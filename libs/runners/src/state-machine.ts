import type { RunnerState, SessionState } from '@svc/domain';
import { RUNNER_STATES } from '@svc/domain';

/**
 * DECISIONS.md "Runner state machine", as data. create → `provisioning` → `ready` (or `failed`);
 * start: `ready` → `running` with a new session `starting` → `active`; stop: session → `stopping` →
 * `terminated`, runner → `ready`; exec: runner `running` with an `active` session; TTL elapsed:
 * session `expired`, runner `stopped`; terminate: any state but `terminated` → `terminated`, every
 * live session `terminated`; a provider error: `failed`.
 */
export type RunnerOperation = 'provision' | 'provisioned' | 'start' | 'session_change' | 'exec' | 'stop' | 'expire' | 'terminate' | 'fail';

export interface RunnerRule {
  /** States the runner must be in for the operation. */
  from: readonly RunnerState[];
  /** State it moves to; null when the operation leaves the runner state alone. */
  to: RunnerState | null;
}

export const RUNNER_RULES: Readonly<Record<RunnerOperation, RunnerRule>> = Object.freeze({
  /** The provider starts provisioning (`runner_provisioning`): the runner stays `provisioning`, its version moves. */
  provision: { from: ['provisioning'], to: null },
  provisioned: { from: ['provisioning'], to: 'ready' },
  start: { from: ['ready'], to: 'running' },
  /** A transition of the running runner's session (activate, stopping, stopped): the runner keeps its state, its version moves. */
  session_change: { from: ['running'], to: null },
  exec: { from: ['running'], to: null },
  stop: { from: ['running'], to: 'ready' },
  expire: { from: ['running'], to: 'stopped' },
  terminate: { from: RUNNER_STATES.filter((state) => state !== 'terminated'), to: 'terminated' },
  fail: { from: ['provisioning', 'ready', 'running'], to: 'failed' },
});

export type SessionOperation = 'activate' | 'exec' | 'stop' | 'stopped' | 'expire' | 'terminate' | 'fail';

export interface SessionRule {
  from: readonly SessionState[];
  to: SessionState | null;
}

/** Session moves: every live state (`starting`, `active`, `stopping`) can expire, fail or be terminated. */
export const SESSION_RULES: Readonly<Record<SessionOperation, SessionRule>> = Object.freeze({
  activate: { from: ['starting'], to: 'active' },
  exec: { from: ['active'], to: null },
  stop: { from: ['active'], to: 'stopping' },
  stopped: { from: ['stopping'], to: 'terminated' },
  expire: { from: ['starting', 'active', 'stopping'], to: 'expired' },
  terminate: { from: ['starting', 'active', 'stopping'], to: 'terminated' },
  fail: { from: ['starting', 'active', 'stopping'], to: 'failed' },
});

export function runnerAllows(operation: RunnerOperation, state: RunnerState): boolean {
  return RUNNER_RULES[operation].from.includes(state);
}

export function sessionAllows(operation: SessionOperation, state: SessionState): boolean {
  return SESSION_RULES[operation].from.includes(state);
}

/** Runner states an operation may start from, as a mutable list for repository filters. */
export function runnerFrom(operation: RunnerOperation): RunnerState[] {
  return [...RUNNER_RULES[operation].from];
}

export function sessionFrom(operation: SessionOperation): SessionState[] {
  return [...SESSION_RULES[operation].from];
}

/** Session states in which a session has ended (nothing more can happen to it). */
export const ENDED_SESSION_STATES: readonly SessionState[] = ['expired', 'failed', 'terminated'];

/** Runner states after which no session can start again (only terminate, or nothing). */
export const FINAL_RUNNER_STATES: readonly RunnerState[] = ['stopped', 'failed', 'terminated'];
