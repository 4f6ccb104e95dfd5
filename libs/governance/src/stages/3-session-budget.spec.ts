import type { GovernanceInput } from '../chain/contract';
import { contextFor } from '../chain/governance.fixtures';
import { resolveSession, SessionRecord, sessionRefusal } from './3-session-budget';

const runner = { runnerId: 'run_1', sessionId: 'ses_1', proof: 'rp1.valid' };
const live: SessionRecord = { runnerId: 'run_1', state: 'active', budgetUsd: 5, spentUsd: 1.5 };
const deps = (session: SessionRecord | null) => ({ findSession: async () => session });
/** A context whose proof the chain found valid (or not): the stage reads the verdict, it does not verify again. */
const withProof = (input: Partial<GovernanceInput>, valid = true) => {
  const ctx = contextFor({ input });
  ctx.runnerProofValid = valid;
  return ctx;
};

describe('stage 3, runner session budget', () => {
  it('applies to a request with a valid proof for a live session', async () => {
    expect(await resolveSession(withProof({ runner }), deps(live))).toEqual({ runnerId: 'run_1', sessionId: 'ses_1', budgetUsd: 5, spentUsd: 1.5 });
  });

  it('is skipped without headers, with an invalid proof, or for an ended or foreign session', async () => {
    expect(await resolveSession(contextFor(), deps(live))).toBeNull();
    expect(await resolveSession(withProof({ runner }, false), deps(live))).toBeNull();
    expect(await resolveSession(contextFor({ input: { runner } }), deps(live))).toBeNull();
    expect(await resolveSession(withProof({ runner }), deps({ ...live, state: 'terminated' }))).toBeNull();
    expect(await resolveSession(withProof({ runner }), deps({ ...live, runnerId: 'run_2' }))).toBeNull();
    expect(await resolveSession(withProof({ runner }), deps(null))).toBeNull();
  });

  it('always charges the session of a runner token, with or without proof headers', async () => {
    const runnerToken = { runnerId: 'run_1', sessionId: 'ses_1' };
    const expected = { runnerId: 'run_1', sessionId: 'ses_1', budgetUsd: 5, spentUsd: 1.5 };
    expect(await resolveSession(contextFor({ input: { runnerToken } }), deps(live))).toEqual(expected);
    // A forged proof for another session does not move the charge away from the token's session.
    const forged = { runnerId: 'run_9', sessionId: 'ses_9', proof: 'rp1.forged' };
    expect(await resolveSession(withProof({ runnerToken, runner: forged }, false), deps(live))).toEqual(expected);
    // A session that is not the token's runner's is not charged.
    expect(await resolveSession(contextFor({ input: { runnerToken } }), deps({ ...live, runnerId: 'run_2' }))).toBeNull();
  });

  it('refuses with GW_SESSION_BUDGET_001', () => {
    const result = sessionRefusal(contextFor(), { runnerId: 'run_1', sessionId: 'ses_1', budgetUsd: 5, spentUsd: 4.9 }, 4.95);
    if (result.outcome !== 'BLOCK') throw new Error('expected BLOCK');
    expect(result.error.status).toBe(403);
    expect(result.error.body).toMatchObject({ type: 'permission_error', code: 'session_budget_exceeded', gateway_error_code: 'GW_SESSION_BUDGET_001' });
    expect(result.error.body.message).toContain('$5.00');
  });
});
