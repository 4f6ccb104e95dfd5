import { RUNNER_STATES, RunnerState, SESSION_STATES, SessionState } from '@svc/domain';
import { RUNNER_RULES, RunnerOperation, runnerAllows, SESSION_RULES, SessionOperation, sessionAllows } from './state-machine';

/** DECISIONS.md "Runner state machine", cell by cell. */
describe('runner state machine', () => {
  const runnerTable: Record<RunnerOperation, RunnerState[]> = {
    provision: ['provisioning'],
    provisioned: ['provisioning'],
    start: ['ready'],
    session_change: ['running'],
    exec: ['running'],
    stop: ['running'],
    expire: ['running'],
    terminate: ['provisioning', 'ready', 'running', 'stopped', 'failed'],
    fail: ['provisioning', 'ready', 'running'],
  };

  it.each(Object.entries(runnerTable))('allows %s from exactly %j', (operation, allowed) => {
    for (const state of RUNNER_STATES) {
      expect([state, runnerAllows(operation as RunnerOperation, state)]).toEqual([state, allowed.includes(state)]);
    }
  });

  it('moves the runner to the decided states', () => {
    expect(Object.fromEntries(Object.entries(RUNNER_RULES).map(([op, rule]) => [op, rule.to]))).toEqual({
      provision: null,
      provisioned: 'ready',
      start: 'running',
      session_change: null,
      exec: null,
      stop: 'ready',
      expire: 'stopped',
      terminate: 'terminated',
      fail: 'failed',
    });
  });

  it('never leaves terminated', () => {
    for (const operation of Object.keys(RUNNER_RULES) as RunnerOperation[]) expect(runnerAllows(operation, 'terminated')).toBe(false);
  });

  const sessionTable: Record<SessionOperation, [SessionState[], SessionState | null]> = {
    activate: [['starting'], 'active'],
    exec: [['active'], null],
    stop: [['active'], 'stopping'],
    stopped: [['stopping'], 'terminated'],
    expire: [['starting', 'active', 'stopping'], 'expired'],
    terminate: [['starting', 'active', 'stopping'], 'terminated'],
    fail: [['starting', 'active', 'stopping'], 'failed'],
  };

  it.each(Object.entries(sessionTable))('moves a session on %s from %j', (operation, [allowed, to]) => {
    for (const state of SESSION_STATES) {
      expect([state, sessionAllows(operation as SessionOperation, state)]).toEqual([state, allowed.includes(state)]);
    }
    expect(SESSION_RULES[operation as SessionOperation].to).toBe(to);
  });

  it('never moves an ended session', () => {
    for (const state of ['expired', 'failed', 'terminated'] as SessionState[]) {
      for (const operation of Object.keys(SESSION_RULES) as SessionOperation[]) expect(sessionAllows(operation, state)).toBe(false);
    }
  });
});
