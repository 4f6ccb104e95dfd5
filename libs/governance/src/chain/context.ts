import type { BudgetNodeEntity, OrgId } from '@svc/domain';
import type { EventDataMap, EventType } from '@svc/events';
import type { GatewayError } from '@svc/platform';
import type { CostEstimate } from '../cost/estimate';
import type { PriceOptions } from '../cost/price-lookup';
import type { GovernancePolicy } from '../data/policy';
import type { Tier } from '../data/tiers';
import { ExtractedText, extractTexts } from '../scanners/extract';
import { extractBodyTexts } from '../scanners/extract-body';
import type { SafetyFinding } from '../scanners/safety/types';
import type { ApprovalRequired, GovernanceFindings, GovernanceInput, StageId } from './contract';

/** What the chain knows about an organization: cached in process (5 s) and invalidated on change. */
export interface OrgProfile {
  orgId: OrgId;
  tier: Tier;
  subscriptionStatus: string;
  /** Tier defaults overlaid by the stored overrides. */
  policy: GovernancePolicy;
  /** Budget nodes of every level (stage 2.5). */
  nodes: BudgetNodeEntity[];
  /** Daily named budgets with `auto_stop` (stage 2). */
  autoStopBudgets: { id: string; name: string; limit: number }[];
}

/** Deployment switches of the optional stages (APP_CONFIG). */
export interface GovernanceFlags {
  /** 4.5: CONTENT_SAFETY_SCAN or DLP_GUARDRAILS. */
  contentSafety: boolean;
  /** 4.6: SECURITY_SCANNER or DLP_GUARDRAILS. */
  securityScanner: boolean;
  /** Prices of stage 2 (the deployment's price for unknown models). */
  prices?: PriceOptions;
}

/** An event a stage asks the chain to publish (never awaited on the hot path). */
export type PendingEvent = { [K in EventType]: { type: K; data: EventDataMap[K] } }[EventType];

export type StageResult =
  | { outcome: 'ALLOW'; events?: PendingEvent[] }
  | {
      outcome: 'BLOCK';
      error: GatewayError;
      events?: PendingEvent[];
      /** The stage to report when it is not the one that ran (4.7 refuses for 4.5 or 4.6). */
      stage?: StageId;
    }
  | { outcome: 'NEEDS_APPROVAL'; approval: ApprovalRequired; headers: Record<string, string>; events?: PendingEvent[] };

export const ALLOW: StageResult = Object.freeze({ outcome: 'ALLOW' });

/** A runner session whose proof verified (stage 3). */
export interface ResolvedSession {
  runnerId: string;
  sessionId: string;
  budgetUsd: number;
  /** Spend recorded on the session document: the counter's seed when Redis has none. */
  spentUsd: number;
}

/** Values of the rate-limit window carried into every response's headers. */
export interface RateMeta {
  limit: number;
  count: number;
  /** Unix seconds. */
  reset: number;
}

/** One request's way through the chain: its input, its organization and what the stages found. */
export class ChainContext {
  estimate: CostEstimate | null = null;
  session: ResolvedSession | null = null;
  rate: RateMeta;
  /** Settled spend of the organization today (USD), for X-SVC-Daily-Cost. */
  dailySpent = 0;
  /** The request's `X-Runner-Proof` verifies for its runner and session (set once, before the stages run; read by 1.5 and 3). */
  runnerProofValid = false;
  /** The approval stage 6 consumed for this request (given back if it gets no usable answer). */
  consumedApprovalId: string | null = null;
  /** Findings of 4.5 and 4.6, decided on by 4.7. */
  safetyFindings: SafetyFinding[] = [];
  readonly findings: Required<GovernanceFindings> = {
    pii_types: [],
    safety_categories: [],
    security_categories: [],
    skills: [],
    pii_counts: {},
    safety_severity: {},
    security_severity: {},
    reasoning_tokens: null,
  };
  private extracted: ExtractedText[] | null = null;

  constructor(
    readonly input: GovernanceInput,
    readonly profile: OrgProfile,
    readonly flags: GovernanceFlags,
  ) {
    this.rate = { limit: profile.policy.rpm_limit, count: 0, reset: Math.floor(input.now.getTime() / 60_000 + 1) * 60 };
  }

  get policy(): GovernancePolicy {
    return this.profile.policy;
  }

  get orgId(): OrgId {
    return this.profile.orgId;
  }

  /** `provider/model`: what prices are looked up by, so route-priced providers (`ollama/`) match. */
  get pricedModel(): string {
    return pricedModel(this.input.provider, this.input.model);
  }

  /** The model id without route prefixes (`groq/llama-3.3-70b` -> `llama-3.3-70b`). */
  get bareModel(): string {
    const model = this.input.model;
    return model.slice(model.lastIndexOf('/') + 1);
  }

  /**
   * Every user-provided text of the body with its field path, extracted once: the known fields of a
   * chat, messages or embeddings body; every string of a D catch-all body, whatever its shape.
   */
  texts(): ExtractedText[] {
    this.extracted ??= this.input.endpoint === 'passthrough' ? extractBodyTexts(this.input.body) : extractTexts(this.input.body);
    return this.extracted;
  }

  get timestamp(): string {
    return this.input.now.toISOString();
  }
}

/**
 * The id a request's price is looked up by: the provider's route and the model (`ollama/llama3.2`,
 * `openai/gpt-4o`). The price table tries the whole id, then drops leading segments.
 */
export function pricedModel(provider: string, model: string): string {
  return provider && !model.startsWith(`${provider}/`) ? `${provider}/${model}` : model;
}
