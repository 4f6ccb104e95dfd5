import type { Principal, RefusedKey } from '@svc/auth';
import { roundUsd, UsageRecordEntity, UsageSource } from '@svc/domain';
import { costAtPrice, GovernanceDecision, matchPrice, ModelPrice, pricedModel, PriceOptions } from '@svc/governance';
import { pathOf, roundMs } from '@svc/platform';
import type { ProviderDefinition, Route } from '../providers';
import type { TokenUsage } from '../upstream';
import type { ExchangeResult } from './upstream-exchange';

/** What one request accumulated on its way through the pipeline. */
export interface FinishState {
  /** The authenticated caller. */
  principal?: Principal;
  /** A key that was identified and then refused (its organization is known). */
  refusedKey?: RefusedKey;
  route?: Route;
  /**
   * The provider the path names (`/v1/{provider}/...`) as the organization's registry knows it, set
   * when the request was refused before routing; absent when the path names none or an unknown one.
   */
  provider?: ProviderDefinition;
  /** The answer was an idempotent replay of a stored one: no provider call, nothing charged. */
  replayed?: true;
  decision?: GovernanceDecision;
  result?: ExchangeResult;
  /**
   * The exchange failed (no `result`) after the request was handed to the provider, without an error
   * answer of the provider's: the client left, a deadline passed or the connection broke. The
   * provider has the prompt.
   */
  dispatched?: true;
  status: number;
  stream: boolean;
  agent: string;
  /** Bytes of the request body, once read. */
  bodyBytes?: number;
}

export interface UsageRecordInput {
  requestId: string;
  provider: string;
  model: string;
  endpoint: string;
  state: FinishState;
  charge: Charge;
  latencyMs: number;
}

/**
 * The record's `provider` (and `model`) when none was resolved: a request refused before routing whose
 * path names no provider of the organization (an unknown route or provider id) or none at all (an
 * unreadable body on the generic routes). Reports group such records under it (docs/gateway.md).
 */
export const UNRESOLVED = 'unknown';

/** The provider a record names: the routed one, else the one the path names, else `unknown`; never the path segment as written. */
export function recordedProvider(state: FinishState): string {
  return state.route?.provider.id ?? state.provider?.id ?? UNRESOLVED;
}

const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;
/** Characters (of answer text) or bytes (of a whole answer) per output token when the provider reported none: SPEC.md's fallback. */
const CHARS_PER_TOKEN = 4;

/** What a request is charged: the cost settled into the budget counters, and the tokens it is made of. */
export interface Charge {
  /** USD, full precision: settled into the counters, recorded as the record's `cost`. */
  cost: number;
  inputTokens: number;
  outputTokens: number;
  /** Where the tokens come from (the usage record's `usage_source`). */
  source: UsageSource;
  /**
   * Set when the price table does not know the model and the charge is at DEFAULT_MODEL_PRICE
   * (counted in `svc_gateway_unpriced_model_requests_total`, shown in the access line).
   */
  defaultPriced?: true;
}

const NO_CHARGE: Charge = { cost: 0, inputTokens: 0, outputTokens: 0, source: 'none' };
const REPLAY: Charge = { ...NO_CHARGE, source: 'replay' };
const NOTHING_ESTIMATED = Object.freeze({ input_tokens: 0, output_tokens: 0 });

/**
 * The charge of a request, one value for the budget counters, the usage record, the access line and
 * the cost metric.
 * - `provider`: the provider's final usage (a whole answer's, a stream's last account).
 * - `estimate`: an answer the provider never gave its final usage for: a stream the client left,
 *   that broke upstream or hit the deadline after it started, that carried a provider error, or that
 *   ended without usage; a whole answer without usage. Input: the provider's own count if the
 *   stream carried one (B's `message_start`, C's running totals), else the prompt as stage 2
 *   counted it. Output: the provider's running count or the answer text relayed (4 characters a
 *   token), whichever is higher (a whole answer: its bytes / 4), at most the request's max output
 *   tokens.
 *   Also a request handed to the provider that got no answer (`dispatched`: the client left, a
 *   first-byte or total deadline passed, the connection broke, before the provider's headers or
 *   before a whole answer's end): the provider has the prompt and bills it, so it is charged as
 *   stage 2 counted it, with 0 output tokens. Otherwise a client could spend on expensive prompts
 *   without its budget moving by hanging up before the answer.
 * - `none`: nothing was sent or answered: refused, an error or redirect answer of the provider's, a
 *   failure before the request reached the provider (a connection not made, an open breaker, a
 *   client that left before then); or an answer without usage to a call stage 2 found nothing to
 *   price in (a D catch-all GET, file or job call: no prompt, whatever stage 2 held for the strings of
 *   its body): cost 0.
 * - `replay`: an idempotent replay, answered from the stored answer without a provider call: cost 0
 *   (the request that was served was charged).
 */
export function chargeOf(provider: string, model: string, state: FinishState, prices: PriceOptions): Charge {
  if (state.replayed) return REPLAY;
  const result = state.result;
  if (!result && !state.dispatched) return NO_CHARGE;
  const { price, key } = matchPrice(pricedModel(provider, model), prices);
  const charged = (charge: Charge): Charge => (key === null ? { ...charge, defaultPriced: true } : charge);
  // A catch-all call without a prompt is held at the tokens of its body's strings (stage 2), but
  // charged only the usage its answer reports: the provider may bill it in other units.
  const estimate = state.decision?.estimate.body_strings ? NOTHING_ESTIMATED : state.decision?.estimate;
  const usage = result?.usage;
  if (usage && result.usageFinal) {
    return charged({ cost: costOfUsage(price, usage, usage.outputTokens), inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, source: 'provider' });
  }
  // An error answer (the provider bills none); a stream that started and then broke is charged below.
  if (result && !result.streamed && result.status >= 400) return NO_CHARGE;
  // A request lost after it was sent (no result) had nothing relayed: its prompt alone is charged.
  const relayed = result ? (result.streamed ? result.textChars : result.bytesRelayed) : 0;
  const outputTokens = Math.max(usage?.outputTokens ?? 0, Math.min(Math.ceil(relayed / CHARS_PER_TOKEN), estimate?.output_tokens ?? Number.MAX_SAFE_INTEGER));
  if (usage && usage.inputTokens > 0) {
    return charged({ cost: costOfUsage(price, usage, outputTokens), inputTokens: usage.inputTokens, outputTokens, source: 'estimate' });
  }
  const inputTokens = estimate?.input_tokens ?? 0;
  if (inputTokens === 0 && outputTokens === 0) return NO_CHARGE;
  return charged({ cost: costAtPrice(price, { input_tokens: inputTokens, output_tokens: outputTokens }), inputTokens, outputTokens, source: 'estimate' });
}

/**
 * The provider's usage at the price table: cached input and B's cache writes at their own prices,
 * A's audio tokens at the audio prices, B's server tools at their per-use fees; the whole request at
 * the model's long-context prices when its prompt (`usage.inputTokens`: every part passed here
 * adds up to it) is above the model's threshold (`costAtPrice`).
 */
function costOfUsage(price: ModelPrice, usage: TokenUsage, outputTokens: number): number {
  const { cachedInputTokens: cached, cacheCreationInputTokens: written, cacheCreation1hInputTokens: written1h } = usage;
  const text = Math.max(0, usage.inputTokens - cached - written);
  const audioIn = Math.min(usage.audioInputTokens ?? 0, text);
  const audioOut = Math.min(usage.audioOutputTokens ?? 0, outputTokens);
  return costAtPrice(price, {
    input_tokens: text - audioIn,
    output_tokens: outputTokens - audioOut,
    cached_input_tokens: cached,
    cache_write_input_tokens: written - written1h,
    cache_write_1h_input_tokens: written1h,
    audio_input_tokens: audioIn,
    audio_output_tokens: audioOut,
    tool_uses: usage.serverToolUses,
  });
}

/**
 * The usage record of DECISIONS.md "Usage record", for served and refused requests alike, once the
 * organization is known (a request without a valid key has no tenant to file it under; it is
 * counted in /metrics only).
 */
export function usageRecord(input: UsageRecordInput): UsageRecordEntity | null {
  const { state } = input;
  const tenant = tenantOf(state);
  if (!tenant) return null;
  const decision = state.decision;
  const findings = decision?.findings;
  const { charge } = input;
  return {
    _id: input.requestId,
    org_id: tenant.orgId,
    key_id: tenant.keyId,
    team_id: tenant.teamId,
    provider: input.provider,
    model: input.model,
    endpoint: input.endpoint,
    stream: state.stream,
    status_code: state.status,
    blocked_by: decision?.blockedBy?.code ?? null,
    input_tokens: charge.inputTokens,
    output_tokens: charge.outputTokens,
    estimated_cost: decision?.estimate.estimated_cost ?? 0,
    cost: charge.cost,
    usage_source: charge.source,
    latency_ms: round(input.latencyMs),
    upstream_latency_ms: state.result?.upstreamLatencyMs ?? null,
    governance_ms: round(decision?.governanceMs ?? 0, 3),
    agent: state.agent,
    runner_id: decision?.session?.runnerId ?? null,
    session_id: decision?.session?.sessionId ?? null,
    created_at: new Date(),
    replay: {
      estimated_input_tokens: decision?.estimate.input_tokens ?? 0,
      max_output_tokens: decision?.estimate.output_tokens ?? 0,
      body_bytes: state.bodyBytes ?? 0,
      pii_findings: findings?.pii_counts ?? eachAs(findings?.pii_types, 1),
      safety_findings: findings?.safety_severity ?? eachAs(findings?.safety_categories, 'detected'),
      security_findings: findings?.security_severity ?? eachAs(findings?.security_categories, 'detected'),
      skills: findings?.skills ?? [],
      reasoning_tokens: findings?.reasoning_tokens ?? null,
    },
  };
}

/**
 * The `ACCESS_LOG` line of a proxied request: the generic line's fields (request id, method, path
 * without its query, status, latency) and what the usage record adds: the tenant, the route, the
 * outcome, the tokens and the cost (shown with `roundUsd`, as every USD amount the service shows).
 * Nothing of the prompt, the answer or the credentials.
 */
export function accessLine(
  request: { id: string; method: string; url: string },
  input: Pick<UsageRecordInput, 'provider' | 'model' | 'state' | 'charge' | 'latencyMs'>,
): Record<string, unknown> {
  const { state, charge } = input;
  const tenant = tenantOf(state);
  return {
    request_id: request.id,
    method: request.method,
    path: pathOf(request.url),
    status_code: state.status,
    latency_ms: roundMs(input.latencyMs),
    org_id: tenant?.orgId ?? null,
    key_id: tenant?.keyId ?? null,
    provider: input.provider,
    model: input.model,
    stream: state.stream,
    blocked_by: state.decision?.blockedBy?.code ?? null,
    input_tokens: charge.inputTokens,
    output_tokens: charge.outputTokens,
    cost: roundUsd(charge.cost),
    usage_source: charge.source,
    // The model is not in the price table: the cost is at DEFAULT_MODEL_PRICE.
    default_price: charge.defaultPriced === true,
  };
}

/** `{name: value}` for each name (most requests have none). */
function eachAs<V>(names: readonly string[] | undefined, value: V): Record<string, V> {
  const out: Record<string, V> = {};
  if (names) for (const name of names) out[name] = value;
  return out;
}

function tenantOf(state: FinishState): { orgId: string; keyId: string | null; teamId: string | null } | null {
  if (state.principal) return { orgId: state.principal.orgId, keyId: state.principal.keyId, teamId: state.principal.teamId };
  if (state.refusedKey) return { orgId: state.refusedKey.orgId, keyId: state.refusedKey.keyId, teamId: state.refusedKey.teamId };
  return null;
}
