import { contextFor } from '../chain/governance.fixtures';
import { resolveSession, SessionRecord, sessionRefusal } from './3-session-budget';

const runner = { runnerId: 'run_1', sessionId: 'ses_1', proof: 'rp1.valid' };
const live: SessionRecord = { runnerId: 'run_1', state: 'active', budgetUsd: 5, spentUsd: 1.5 };
const deps = (session: SessionRecord | null, valid = true) => ({
  verifyProof: (r: string, s: string, proof: string) => valid && r === runner.runnerId && s === runner.sessionId && proof === runner.proof,
  findSession: async () => session,
});

describe('stage 3, runner session budget', () => {
  it('applies to a request with a valid proof for a live session', async () => {
    expect(await resolveSession(contextFor({ input: { runner } }), deps(live))).toEqual({ runnerId: 'run_1', sessionId: 'ses_1', budgetUsd: 5, spentUsd: 1.5 });
  });

  it('is skipped without headers, with an invalid proof, or for an ended or foreign session', async () => {
    expect(await resolveSession(contextFor(), deps(live))).toBeNull();
    expect(await resolveSession(contextFor({ input: { runner } }), deps(live, false))).toBeNull();
    expect(await resolveSession(contextFor({ input: { runner } }), deps({ ...live, state: 'terminated' }))).toBeNull();
    expect(await resolveSession(contextFor({ input: { runner } }), deps({ ...live, runnerId: 'run_2' }))).toBeNull();
    expect(await resolveSession(contextFor({ input: { runner } }), deps(null))).toBeNull();
  });

  it('refuses with GW_SESSION_BUDGET_001', () => {
    const result = sessionRefusal(contextFor(), { runnerId: 'run_1', sessionId: 'ses_1', budgetUsd: 5, spentUsd: 4.9 }, 4.95);
    if (result.outcome !== 'BLOCK') throw new Error('expected BLOCK');
    expect(result.error.status).toBe(403);
    expect(result.error.body).toMatchObject({ type: 'permission_error', code: 'session_budget_exceeded', gateway_error_code: 'GW_SESSION_BUDGET_001' });
    expect(result.error.body.message).toContain('$5.00');
  });
});
