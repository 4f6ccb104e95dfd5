import { GatewayError, Logger } from '@svc/platform';
import { PlanQuotaOverrides } from '../data/plan-quotas';
import { FailoverCounterStore } from '../counters/failover-counter-store';
import { CounterKeys } from '../counters/keys';
import { fromMicros } from '../counters/periods';
import { AdmitLevel, AdmitPlan, AdmitResult } from '../counters/types';
import { ExternalSafetyClassifier } from '../scanners/safety/external-classifier';
import { planQuotaRefusal, planStage } from '../stages/0-plan';
import { bodySizeStage } from '../stages/0.5-body-size';
import { rateLimitRefusal } from '../stages/1-rate-limit';
import { entitlementStage } from '../stages/1.5-plan-entitlement';
import { reasoningCapStage } from '../stages/1.7-reasoning-cap';
import { budgetRefusal, estimateStage } from '../stages/2-cost-estimate';
import { hierarchyRefusal, nodesForRequest } from '../stages/2.5-budget-hierarchy';
import { resolveSession, SessionRecord, sessionRefusal } from '../stages/3-session-budget';
import { piiStage } from '../stages/4-pii';
import { contentSafetyStage } from '../stages/4.5-content-safety';
import { securityScannerStage } from '../stages/4.6-security-scanner';
import { classifierStage } from '../stages/4.7-ai-classifier';
import { modelAllowlistStage } from '../stages/5-model-allowlist';
import { skillAllowlistStage } from '../stages/5.5-skill-allowlist';
import { HitlApprovals, hitlStage } from '../stages/6-hitl';
import { PiiNerClient } from '../stages/ner-client';
import { ChainContext, GovernanceFlags, OrgProfile, PendingEvent, StageResult } from './context';
import { GovernanceDecision, GovernanceInput, Reservation, StageId } from './contract';
import { admitLevelBefore, buildAdmitPlan, reservationDetail } from './counter-plan';
import { decisionHeaders } from './headers';

export interface ChainRunnerDeps {
  keys: CounterKeys;
  counters: FailoverCounterStore;
  approvals: HitlApprovals;
  logger: Logger;
  quotas: PlanQuotaOverrides;
  flags: GovernanceFlags;
  ner: PiiNerClient | null;
  classifier: ExternalSafetyClassifier | null;
  /** Checks `X-Runner-Proof` against the runner and session ids (HMAC, constant time); called once per request. */
  verifyProof(runnerId: string, sessionId: string, proof: string): boolean;
  findSession(ctx: ChainContext, sessionId: string): Promise<SessionRecord | null>;
  /** Gives back a reservation whose request a later stage refused (never awaited). */
  release(reservation: Reservation): void;
}

type Stage = readonly [StageId, (ctx: ChainContext) => StageResult | Promise<StageResult>];

interface Refusal {
  stage: StageId;
  result: Exclude<StageResult, { outcome: 'ALLOW' }>;
}

/** The events of an allowed request: none (shared, never mutated). */
const NO_EVENTS = Object.freeze([]) as unknown as PendingEvent[];

/**
 * Runs the fifteen stages in SPEC.md order, stopping at the first that does not allow:
 * 1. the in-process parts of stages 0 to 3 (subscription and model on plan, body size, plan
 *    features, reasoning cap, cost estimate and per-request cap, runner proof), stopping at the
 *    first refusal;
 * 2. one counter call (one Redis round trip) for the counter parts of the stages before that
 *    refusal: plan quota (0), RPM (1), budget reservation (2), budget nodes (2.5), session (3).
 *    A counter refusal is always earlier in stage order than the in-process one, so the reported
 *    refusal is the first in stage order, and no counter work is done for later stages;
 * 3. stages 4 to 6 in process; a refusal there gives the reservation back.
 */
export class ChainRunner {
  private readonly before: readonly Stage[];
  private readonly after: readonly Stage[];

  constructor(private readonly deps: ChainRunnerDeps) {
    this.before = [
      ['0', planStage],
      ['0.5', bodySizeStage],
      ['1.5', entitlementStage],
      ['1.7', reasoningCapStage],
      ['2', estimateStage],
    ];
    const log = deps.logger;
    this.after = [
      [
        '4',
        (ctx) =>
          piiStage(ctx, {
            ner: deps.ner,
            onWarning: (findings, action) => log.warn({ org_id: ctx.orgId, request_id: ctx.input.requestId, pii_action: action, pii: findings }, 'PII found and let through'),
            onNerError: (err) => log.warn({ err, request_id: ctx.input.requestId }, 'PII analyzer failed; pattern findings decide alone'),
          }),
      ],
      ['4.5', contentSafetyStage],
      ['4.6', securityScannerStage],
      [
        '4.7',
        (ctx) =>
          classifierStage(ctx, {
            external: deps.classifier,
            onLogged: (findings) =>
              log.warn(
                { org_id: ctx.orgId, request_id: ctx.input.requestId, findings: findings.map(({ stage, rule, category, severity, path, score }) => ({ stage, rule, category, severity, path, score })) },
                'guardrail findings logged and allowed',
              ),
            onExternalError: (err) => log.warn({ err, request_id: ctx.input.requestId }, 'external classifier failed; the built-in decision stands'),
          }),
      ],
      ['5', modelAllowlistStage],
      ['5.5', skillAllowlistStage],
      ['6', (ctx) => hitlStage(ctx, deps.approvals)],
    ];
  }

  async run(input: GovernanceInput, profile: OrgProfile): Promise<{ decision: GovernanceDecision; events: PendingEvent[] }> {
    const started = performance.now();
    const ctx = new ChainContext(input, profile, this.deps.flags);
    // Runner headers make a runner request (stage 1.5's entitlement) and name the session stage 3
    // charges only with a proof that verifies: checked here, once, and read by both from the context.
    if (input.runner) ctx.runnerProofValid = this.deps.verifyProof(input.runner.runnerId, input.runner.sessionId, input.runner.proof);
    let refusal = await this.runStages(ctx, this.before);
    if (!refusal) ctx.session = await resolveSession(ctx, this.deps);

    const nodes = refusal ? [] : nodesForRequest(ctx);
    const level = admitLevelBefore(refusal?.stage ?? null);
    const plan = buildAdmitPlan(ctx, level, this.deps.keys, nodes, this.deps.quotas);
    const { result, store } = await this.deps.counters.admit(plan);
    ctx.rate = { ...ctx.rate, count: result.rpmCount };
    ctx.dailySpent = fromMicros(result.daySpentMicros);
    refusal = this.counterRefusal(ctx, plan, result, nodes) ?? refusal;

    let reservation: Reservation | null = null;
    if (!refusal && level === AdmitLevel.Reserve) {
      reservation = {
        id: input.requestId,
        orgId: ctx.orgId,
        estimatedCost: ctx.estimate?.estimated_cost ?? 0,
        detail: reservationDetail(ctx, plan, nodes, store, this.deps.keys) as unknown as Record<string, unknown>,
        settled: false,
      };
      try {
        refusal = await this.runStages(ctx, this.after);
      } catch (err) {
        this.deps.release(reservation);
        throw err;
      }
      if (refusal) {
        this.deps.release(reservation);
        reservation = null;
      }
    }
    return this.decide(ctx, refusal, reservation, started);
  }

  /**
   * The headers of every response for a request refused before the chain ran (its body or route
   * was refused): the rate-limit window and today's spend, read with one counter call that counts
   * nothing (AdmitLevel.Peek), and a cost of 0.
   */
  async standingHeaders(input: GovernanceInput, profile: OrgProfile): Promise<Record<string, string>> {
    const started = performance.now();
    const ctx = new ChainContext(input, profile, this.deps.flags);
    const { result } = await this.deps.counters.admit(buildAdmitPlan(ctx, AdmitLevel.Peek, this.deps.keys, [], this.deps.quotas));
    ctx.rate = { ...ctx.rate, count: result.rpmCount };
    ctx.dailySpent = fromMicros(result.daySpentMicros);
    return decisionHeaders(ctx, performance.now() - started);
  }

  private async runStages(ctx: ChainContext, stages: readonly Stage[]): Promise<Refusal | null> {
    for (const [stage, run] of stages) {
      // Most stages decide synchronously: awaiting only the ones that return a promise saves a
      // promise and a microtask turn per stage.
      const pending = run(ctx);
      const result = pending instanceof Promise ? await pending : pending;
      if (result.outcome !== 'ALLOW') return { stage: (result.outcome === 'BLOCK' && result.stage) || stage, result };
    }
    return null;
  }

  private counterRefusal(ctx: ChainContext, plan: AdmitPlan, result: AdmitResult, nodes: ChainContext['profile']['nodes']): Refusal | null {
    const block = (stage: StageId, outcome: StageResult): Refusal => ({ stage, result: outcome as Refusal['result'] });
    const state = {
      daySpent: fromMicros(result.daySpentMicros),
      dayReserved: fromMicros(result.dayReservedMicros),
      monthSpent: fromMicros(result.monthSpentMicros),
      monthReserved: fromMicros(result.monthReservedMicros),
    };
    switch (result.code) {
      case 'ok':
        return null;
      case 'quota':
        return block('0', planQuotaRefusal(ctx, result.quotaUsed, plan.quota.limit ?? result.quotaUsed));
      case 'rpm':
        return block('1', rateLimitRefusal(ctx, ctx.rate));
      case 'daily_budget':
      case 'auto_stop':
      case 'monthly_budget':
        return block('2', budgetRefusal(ctx, result.code, state));
      case 'node':
        return block('2.5', hierarchyRefusal(ctx, nodes[result.deniedIndex], fromMicros(result.deniedUsedMicros)));
      case 'session':
        return ctx.session ? block('3', sessionRefusal(ctx, ctx.session, fromMicros(result.deniedUsedMicros))) : null;
    }
  }

  private decide(ctx: ChainContext, refusal: Refusal | null, reservation: Reservation | null, started: number): { decision: GovernanceDecision; events: PendingEvent[] } {
    const estimate = ctx.estimate ?? { input_tokens: 0, output_tokens: 0, estimated_cost: 0 };
    const governanceMs = performance.now() - started;
    const session = ctx.session ? { runnerId: ctx.session.runnerId, sessionId: ctx.session.sessionId } : null;
    // One object literal per outcome (no spread of a shared base): this runs on every request.
    if (!refusal) {
      const headers = decisionHeaders(ctx, governanceMs);
      return {
        decision: {
          estimate,
          findings: ctx.findings,
          governanceMs,
          session,
          outcome: 'ALLOW',
          error: null,
          approval: null,
          headers,
          reservation,
          blockedBy: null,
          consumedApprovalId: ctx.consumedApprovalId,
        },
        events: NO_EVENTS,
      };
    }
    const { stage, result } = refusal;
    const events = result.events ?? [];
    if (result.outcome === 'NEEDS_APPROVAL') {
      const headers = decisionHeaders(ctx, governanceMs, result.headers);
      return {
        decision: { estimate, findings: ctx.findings, governanceMs, session, outcome: 'NEEDS_APPROVAL', error: null, approval: result.approval, headers, reservation: null, blockedBy: { stage, code: 'approval_required' } },
        events,
      };
    }
    const headers = decisionHeaders(ctx, governanceMs, result.error.headers);
    const error = new GatewayError(result.error.status, result.error.body, headers);
    return {
      decision: { estimate, findings: ctx.findings, governanceMs, session, outcome: 'BLOCK', error, approval: null, headers, reservation: null, blockedBy: { stage, code: error.body.code } },
      events,
    };
  }
}
