import { defineCollection } from '../store/types';

/** What policy simulation needs to replay a request against a draft policy. */
export interface UsageReplay {
  estimated_input_tokens: number;
  /** `max_tokens` / `max_completion_tokens`, or the 4096 default. */
  max_output_tokens: number;
  body_bytes: number;
  /** PII findings by type, e.g. `{ email: 2 }` (never the matched text). */
  pii_findings: Record<string, number>;
  /** Content-safety findings by category with their highest severity. */
  safety_findings: Record<string, string>;
  /** Security-scanner findings by category with their highest severity. */
  security_findings: Record<string, string>;
  /** Tool/skill names the request declared. */
  skills: string[];
  /** Reasoning tokens requested (reasoning effort / thinking budget), if any. */
  reasoning_tokens: number | null;
}

/**
 * Where a record's tokens (and so its `cost`) come from: `provider`, the provider's reported usage;
 * `estimate`, the gateway's count for an answer whose final usage never came (a stream left by its
 * client or broken mid-way, an answer without usage); `none`, nothing was answered (cost 0);
 * `replay`, an idempotent replay of a stored answer: served, but no provider call and no spend (cost 0).
 */
export type UsageSource = 'provider' | 'estimate' | 'none' | 'replay';

/** One proxied (or blocked) request (DECISIONS.md "Usage record"). Retained 90 days. */
export interface UsageRecordEntity {
  /** The request id, `gw_...` (the `X-SVC-Request-ID`). */
  _id: string;
  org_id: string;
  key_id: string | null;
  team_id: string | null;
  provider: string;
  model: string;
  endpoint: string;
  stream: boolean;
  status_code: number;
  /** The governance step that blocked it (e.g. `daily_budget`), or null. */
  blocked_by: string | null;
  /** Tokens charged: the provider's usage, or the gateway's estimate (see `usage_source`). */
  input_tokens: number;
  output_tokens: number;
  /** Stage 2's estimate (counted input plus max output tokens), reserved before the upstream call. */
  estimated_cost: number;
  /** What the request was charged, the amount settled into the budget counters (0 when blocked). */
  cost: number;
  /** Basis of the tokens and `cost`; absent on records written before the field existed. */
  usage_source?: UsageSource;
  latency_ms: number;
  upstream_latency_ms: number | null;
  governance_ms: number;
  agent: string | null;
  runner_id: string | null;
  session_id: string | null;
  created_at: Date;
  replay: UsageReplay;
}

export const USAGE_RETENTION_SECONDS = 90 * 24 * 3600;

export const USAGE_RECORDS = defineCollection<UsageRecordEntity>('usage_records', [
  {
    fields: { created_at: 1 },
    expireAfterSeconds: USAGE_RETENTION_SECONDS,
    comment: 'retention: 90 days; also listOrgIdsWithUsageSince (all orgs, by time)',
  },
  {
    fields: { org_id: 1, created_at: -1 },
    comment: 'usage of an org over a time range: listing, daily/billing/latency/agent aggregates, policy replay',
  },
  { fields: { org_id: 1, key_id: 1, created_at: -1 }, comment: 'usage of one key over a time range' },
], { deferLoad: true }); // written on every request, read only by reports: the embedded store keeps it on disk until read
