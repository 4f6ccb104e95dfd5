import { GatewayError } from '@svc/platform';
import { formatUsd } from '@svc/domain';
import { ChainContext, ResolvedSession, StageResult } from '../chain/context';

/**
 * Stage 3, runner session budget (DECISIONS.md "Runner session budget (3)"). It runs when the
 * request carries `X-Runner-ID`, `X-Session-ID` and an `X-Runner-Proof` that verifies for exactly
 * that runner and session, and the session is alive; otherwise the stage is skipped, as SPEC.md
 * says ("runs only when ... trusted"). A request made with the session's own runner token
 * (`svc_rt_`) is always charged to that session: the token is the proof, and leaving the headers
 * out cannot skip the budget. The session's spent plus reserved plus this estimate must stay
 * within its budget (default 5 USD, settable per runner): the counter script checks and reserves
 * it with the other budgets.
 */

export interface SessionRecord {
  runnerId: string;
  state: string;
  budgetUsd: number;
  spentUsd: number;
}

export interface SessionStageDeps {
  /** The session of the organization, or null (cached by the caller). */
  findSession(ctx: ChainContext, sessionId: string): Promise<SessionRecord | null>;
}

const LIVE_STATES = new Set(['starting', 'active', 'stopping']);

/** The session to charge, or null when stage 3 does not apply to this request. */
export async function resolveSession(ctx: ChainContext, deps: SessionStageDeps): Promise<ResolvedSession | null> {
  const token = ctx.input.runnerToken;
  if (token) {
    // The runner token is only valid while its session lives (it is revoked when the session ends).
    const session = await deps.findSession(ctx, token.sessionId);
    if (!session || session.runnerId !== token.runnerId) return null;
    return { runnerId: token.runnerId, sessionId: token.sessionId, budgetUsd: session.budgetUsd, spentUsd: session.spentUsd };
  }
  const runner = ctx.input.runner;
  // The chain verified the proof once, before the stages (`ctx.runnerProofValid`); it is not checked again.
  if (!runner || !ctx.runnerProofValid) return null;
  const session = await deps.findSession(ctx, runner.sessionId);
  if (!session || session.runnerId !== runner.runnerId || !LIVE_STATES.has(session.state)) return null;
  return { runnerId: runner.runnerId, sessionId: runner.sessionId, budgetUsd: session.budgetUsd, spentUsd: session.spentUsd };
}

export function sessionRefusal(ctx: ChainContext, session: ResolvedSession, usedUsd: number): StageResult {
  const estimate = ctx.estimate?.estimated_cost ?? 0;
  return {
    outcome: 'BLOCK',
    error: new GatewayError(403, {
      message: `Runner session ${session.sessionId} would exceed its budget of ${formatUsd(session.budgetUsd)}: ${formatUsd(usedUsd)} used, this request is estimated at ${formatUsd(estimate)}.`,
      type: 'permission_error',
      code: 'session_budget_exceeded',
      gateway_error_code: 'GW_SESSION_BUDGET_001',
      remediation: "Start a new runner session, lower the request cost, or raise the runner's session budget.",
    }),
  };
}
