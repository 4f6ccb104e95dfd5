import type { Principal } from '@svc/auth';
import type { GatewayError } from '@svc/platform';
import type { CostEstimate } from '../cost/estimate';

/**
 * The contract between the proxy (libs/proxy) and the governance chain. The proxy resolves the
 * caller and the route, then calls `evaluate` once before the upstream call and `settle` once
 * when the response or stream ends (or is aborted).
 */

export type StageOutcome = 'ALLOW' | 'BLOCK' | 'NEEDS_APPROVAL';

/** SPEC.md stage identifiers, in chain order. */
export const STAGE_ORDER = ['0', '0.5', '1', '1.5', '1.7', '2', '2.5', '3', '4', '4.5', '4.6', '4.7', '5', '5.5', '6'] as const;
export type StageId = (typeof STAGE_ORDER)[number];

export type RequestFormat = 'openai' | 'anthropic' | 'gemini';
export type Endpoint = 'chat' | 'messages' | 'embeddings' | 'passthrough';

export interface GovernanceInput {
  /** `gw_...`, also the usage record id. */
  requestId: string;
  principal: Principal;
  endpoint: Endpoint;
  /** The format of the request body as the client sent it (C is sent in format A). */
  format: RequestFormat;
  provider: string;
  /** The model after alias resolution (what allowlists and prices use). */
  model: string;
  /** What the client asked for (alias or provider/model form). */
  requestedModel: string;
  /** The parsed JSON body (possibly undefined for a bodiless passthrough). */
  body: unknown;
  bodyBytes: number;
  stream: boolean;
  /** `X-SVC-Agent`, else the key's name. */
  agent: string;
  /** `X-Runner-ID`, `X-Session-ID`, `X-Runner-Proof` when all three were sent. */
  runner: { runnerId: string; sessionId: string; proof: string } | null;
  /**
   * The session of a runner token (`svc_rt_`): the token itself is the proof, so stage 3 always
   * charges this session and the headers above are not consulted.
   */
  runnerToken?: { runnerId: string; sessionId: string } | null;
  /**
   * The body was refused while being read (larger than the limit): `bodyBytes` is what was
   * declared or counted so far, `body` is absent, and stage 0.5 refuses.
   */
  bodyIncomplete?: boolean;
  now: Date;
  /**
   * Optional (added with the chain): the caller asks to skip the HITL gate (`X-SVC-HITL-Bypass: true`).
   * Refused by stage 1.5 on plans without it; honoured by stage 6 only for principals with `admin:write`.
   */
  hitlBypass?: boolean;
}

/** What was reserved against budgets; handed back to `settle`. */
export interface Reservation {
  id: string;
  orgId: string;
  estimatedCost: number;
  /** Opaque to the proxy. */
  detail: Record<string, unknown>;
  /**
   * Set by `settle`: a second settle of this object costs nothing (one settled again from another
   * object, a replay, is still applied once: the counter stores' settle markers see to that).
   */
  settled: boolean;
}


/** What the stages found, kept on the usage record so policy simulation can replay the request. */
export interface GovernanceFindings {
  pii_types: string[];
  safety_categories: string[];
  security_categories: string[];
  skills: string[];
  /** Optional (added with the chain): PII matches by type, for the usage record's replay data. */
  pii_counts?: Record<string, number>;
  /** Optional (added with the chain): highest severity per safety / security category. */
  safety_severity?: Record<string, string>;
  security_severity?: Record<string, string>;
  /** Optional (added with the chain): reasoning tokens the request asked for, if any. */
  reasoning_tokens?: number | null;
}

export interface ApprovalRequired {
  status: 'pending_approval';
  approval_id: string;
  retry_after_seconds: number;
  message: string;
  estimated_cost: number;
  model: string;
}

export interface GovernanceDecision {
  outcome: StageOutcome;
  /** BLOCK: the documented error (status, type, code, gateway_error_code, remediation). */
  error: GatewayError | null;
  /** NEEDS_APPROVAL: the 202 body. */
  approval: ApprovalRequired | null;
  /**
   * Headers for every response, allowed or refused: X-RateLimit-Limit/-Remaining/-Reset,
   * X-SVC-Daily-Cost, X-SVC-Daily-Budget, X-SVC-Cost, X-SVC-Governance-Time-Ms, X-Gateway-Org,
   * and Retry-After on 429 and 202, X-SVC-Approval-ID on 202.
   */
  headers: Record<string, string>;
  estimate: CostEstimate;
  /** Present when ALLOW reserved budget; settle it exactly once. */
  reservation: Reservation | null;
  /** The stage that refused, e.g. `'1'`, and its `code` (`rate_limit`), for usage records and metrics. */
  blockedBy: { stage: StageId; code: string } | null;
  findings: GovernanceFindings;
  governanceMs: number;
  /** The runner session stage 3 charged (verified proof or runner token), for the usage record. */
  session: { runnerId: string; sessionId: string } | null;
  /**
   * ALLOW: the HITL approval stage 6 consumed for this request, if any. Give it back with
   * `releaseApproval` when the request ends without a provider answer the client can use, else
   * mark it used with `keepApproval`.
   */
  consumedApprovalId?: string | null;
}

export interface GovernanceHealth {
  /** True while counters fall back to memory because Redis is unreachable. */
  degraded: boolean;
}

export interface RateLimitSnapshot {
  org_id: string;
  current_rpm: number;
  rpm_limit: number;
}

export interface GovernanceService {
  evaluate(input: GovernanceInput): Promise<GovernanceDecision>;
  /** Moves the reservation to spend at the real cost (0 when nothing was served). Idempotent. */
  settle(reservation: Reservation, actualCostUsd: number): Promise<void>;
  health(): GovernanceHealth;
  /** Top organizations by requests in the current minute (detailed health). */
  busiestOrgs(limit: number): Promise<RateLimitSnapshot[]>;
  /** Today's spend across organizations and the sum of their daily budgets (detailed health). */
  todayCost(): Promise<{ today_usd: number; daily_budget_usd: number }>;
  /** The effective body-size limit of an organization, in bytes (read before the body). */
  bodyLimit(principal: Principal): Promise<number>;
  /**
   * The headers of every response (rate-limit window, today's spend, cost 0) for a request of the
   * principal refused before `evaluate` ran; nothing is counted.
   */
  standingHeaders(principal: Principal, requestId: string): Promise<Record<string, string>>;
  /**
   * Gives back the approval `decision.consumedApprovalId` that the request `requestId` consumed
   * (approved and unused again); a no-op unless that request still holds it.
   */
  releaseApproval(orgId: string, approvalId: string, requestId: string): Promise<void>;
  /**
   * Marks the approval `decision.consumedApprovalId` used for good (`used_at`) once the request
   * `requestId` that consumed it has finished and keeps it; until then, an identical request finds
   * it in use (409 `approval_in_progress`). A no-op unless that request holds it.
   */
  keepApproval(orgId: string, approvalId: string, requestId: string): Promise<void>;
}

/** Injection token of the GovernanceService. */
export const GOVERNANCE = Symbol('GOVERNANCE');

/** Helper for the 403/429/413 errors' typing in stages. */
export type StageError = GatewayError;
