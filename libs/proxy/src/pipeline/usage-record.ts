import type { Principal, RefusedKey } from '@svc/auth';
import type { UsageRecordEntity } from '@svc/domain';
import { costOf, GovernanceDecision, pricedModel, PriceOptions } from '@svc/governance';
import { pathOf, roundMs } from '@svc/platform';
import type { Route } from '../providers';
import type { ExchangeResult } from './upstream-exchange';

/** What one request accumulated on its way through the pipeline. */
export interface FinishState {
  /** The authenticated caller. */
  principal?: Principal;
  /** A key that was identified and then refused (its organization is known). */
  refusedKey?: RefusedKey;
  route?: Route;
  decision?: GovernanceDecision;
  result?: ExchangeResult;
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
  cost: number;
  latencyMs: number;
}

const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;
/** Output tokens of an answer whose usage never arrived, from its bytes: SSE framing makes it an upper bound. */
const BYTES_PER_TOKEN = 4;

/**
 * The cost to settle and record. From the provider's token usage when it reported one; when it did
 * not (a stream aborted before its usage chunk, a provider that sends none), an upper bound: the
 * counted input tokens plus the relayed bytes as output tokens, at most the request's max output.
 * Nothing sent upstream costs nothing.
 */
export function costOfExchange(provider: string, model: string, state: FinishState, prices: PriceOptions): number {
  const result = state.result;
  if (!result) return 0;
  const priced = pricedModel(provider, model);
  const usage = result.usage;
  if (usage) {
    const { cachedInputTokens: cached, cacheCreationInputTokens: written, cacheCreation1hInputTokens: written1h } = usage;
    return costOf(
      priced,
      {
        input_tokens: Math.max(0, usage.inputTokens - cached - written),
        output_tokens: usage.outputTokens,
        cached_input_tokens: cached,
        cache_write_input_tokens: written - written1h,
        cache_write_1h_input_tokens: written1h,
      },
      prices,
    );
  }
  if (result.status >= 400 && !result.aborted) return 0;
  const estimate = state.decision?.estimate;
  const output = Math.min(Math.ceil(result.bytesRelayed / BYTES_PER_TOKEN), estimate?.output_tokens ?? Number.MAX_SAFE_INTEGER);
  return costOf(priced, { input_tokens: estimate?.input_tokens ?? 0, output_tokens: output }, prices);
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
  const usage = state.result?.usage;
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
    input_tokens: usage?.inputTokens ?? 0,
    output_tokens: usage?.outputTokens ?? 0,
    estimated_cost: decision?.estimate.estimated_cost ?? 0,
    cost: input.cost,
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
 * outcome and the cost. Nothing of the prompt, the answer or the credentials.
 */
export function accessLine(
  request: { id: string; method: string; url: string },
  input: Pick<UsageRecordInput, 'provider' | 'model' | 'state' | 'cost' | 'latencyMs'>,
): Record<string, unknown> {
  const { state } = input;
  const tenant = tenantOf(state);
  const usage = state.result?.usage;
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
    input_tokens: usage?.inputTokens ?? 0,
    output_tokens: usage?.outputTokens ?? 0,
    cost: input.cost,
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
