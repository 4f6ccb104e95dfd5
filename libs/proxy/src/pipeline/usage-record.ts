import type { Principal } from '@svc/auth';
import type { UsageRecordEntity } from '@svc/domain';
import type { GovernanceDecision } from '@svc/governance';
import type { Route } from '../providers';
import type { TokenUsage } from '../upstream';
import type { ExchangeResult } from './upstream-exchange';

/** What one request accumulated on its way through the pipeline. */
export interface FinishState {
  route?: Route;
  decision?: GovernanceDecision;
  result?: ExchangeResult;
  status: number;
  stream: boolean;
  agent: string;
  /** Bytes of the request body, once read. */
  bodyBytes?: number;
  /** `X-Runner-ID` / `X-Session-ID` of a call made from a runner session. */
  runner?: { runnerId: string; sessionId: string } | null;
}

export interface UsageRecordInput {
  principal: Principal;
  requestId: string;
  provider: string;
  model: string;
  endpoint: string;
  state: FinishState;
  cost: number;
  latencyMs: number;
  usage: TokenUsage | undefined;
}

const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

/** The usage record of DECISIONS.md "Usage record", for served and refused requests alike. */
export function usageRecord(input: UsageRecordInput): UsageRecordEntity {
  const { principal, state } = input;
  const decision = state.decision;
  const findings = decision?.findings;
  return {
    _id: input.requestId,
    org_id: principal.orgId,
    key_id: principal.keyId,
    team_id: principal.teamId,
    provider: input.provider,
    model: input.model,
    endpoint: input.endpoint,
    stream: state.stream,
    status_code: input.state.status,
    blocked_by: decision?.blockedBy?.code ?? null,
    input_tokens: input.usage?.inputTokens ?? 0,
    output_tokens: input.usage?.outputTokens ?? 0,
    estimated_cost: decision?.estimate.estimated_cost ?? 0,
    cost: input.cost,
    latency_ms: round(input.latencyMs),
    upstream_latency_ms: state.result?.upstreamLatencyMs ?? null,
    governance_ms: round(decision?.governanceMs ?? 0, 3),
    agent: state.agent,
    runner_id: state.runner?.runnerId ?? null,
    session_id: state.runner?.sessionId ?? null,
    created_at: new Date(),
    replay: {
      estimated_input_tokens: decision?.estimate.input_tokens ?? 0,
      max_output_tokens: decision?.estimate.output_tokens ?? 0,
      body_bytes: state.bodyBytes ?? 0,
      pii_findings: findings?.pii_counts ?? Object.fromEntries((findings?.pii_types ?? []).map((type: string) => [type, 1])),
      safety_findings: findings?.safety_severity ?? Object.fromEntries((findings?.safety_categories ?? []).map((category: string) => [category, 'detected'])),
      security_findings: findings?.security_severity ?? Object.fromEntries((findings?.security_categories ?? []).map((category: string) => [category, 'detected'])),
      skills: findings?.skills ?? [],
      reasoning_tokens: findings?.reasoning_tokens ?? null,
    },
  };
}
