import { roundUsd } from '@svc/domain';
import { round2 } from '../common/org-errors';

/** One usage record as agent health reads it. */
export interface AgentSample {
  agent: string | null;
  latency_ms: number;
  status_code: number;
  blocked_by: string | null;
  cost: number;
  created_at: Date;
  /** A provider answered it (usage-populations.ts `provider_calls`): its latency is the provider call's. */
  provider_call: boolean;
}

export type AgentStatus = 'healthy' | 'degraded' | 'unhealthy';

export interface AgentHealth {
  agent_name: string;
  score: number;
  status: AgentStatus;
  /** Every request of the agent in the window, blocked ones included. */
  requests: number;
  /**
   * Requests not blocked by governance: served (idempotent replays included) or failed (refusals
   * before governance, such as an unknown route, included: they are the agent's errors).
   */
  executions: number;
  errors: number;
  /** errors / executions, 0-1. */
  error_rate: number;
  blocked: number;
  p50_latency_ms: number;
  p95_latency_ms: number;
  total_cost: number;
  last_seen_at: string;
}

/** Records without an agent (no `X-SVC-Agent` header and no key name) are reported under this name. */
export const UNATTRIBUTED_AGENT = 'unattributed';

/** Nearest-rank percentile of ascending values (0 for none). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/** Points taken off for a slow p95 (ms thresholds). */
export function latencyPenalty(p95: number): number {
  if (p95 > 30_000) return 30;
  if (p95 > 10_000) return 15;
  if (p95 > 5_000) return 5;
  return 0;
}

/**
 * Health of one agent over its samples: score = 100 × (1 − error rate), minus up to 30 points for
 * a slow p95 and up to 20 for the share of its requests governance blocked, clamped to 0–100;
 * healthy from 90, degraded from 70, unhealthy below. An error is an execution (a request not
 * blocked by governance) that ended with a status of 400 or more; latencies are those of the
 * provider calls (not of a refusal or an idempotent replay, answered at once).
 */
export function agentHealth(name: string, samples: readonly AgentSample[]): AgentHealth {
  const executed = samples.filter((s) => !s.blocked_by);
  const errors = executed.filter((s) => s.status_code >= 400).length;
  const latencies = samples
    .filter((s) => s.provider_call)
    .map((s) => s.latency_ms)
    .sort((a, b) => a - b);
  const errorRate = executed.length ? errors / executed.length : 0;
  const blocked = samples.length - executed.length;
  const p95 = percentile(latencies, 95);
  const raw = 100 * (1 - errorRate) - latencyPenalty(p95) - (samples.length ? (blocked / samples.length) * 20 : 0);
  const score = Math.max(0, Math.min(100, Math.round(raw)));
  const last = samples.reduce((max, s) => (s.created_at > max ? s.created_at : max), new Date(0));
  return {
    agent_name: name,
    score,
    status: score >= 90 ? 'healthy' : score >= 70 ? 'degraded' : 'unhealthy',
    requests: samples.length,
    executions: executed.length,
    errors,
    error_rate: Math.round(errorRate * 10_000) / 10_000,
    blocked,
    p50_latency_ms: round2(percentile(latencies, 50)),
    p95_latency_ms: round2(p95),
    total_cost: roundUsd(executed.reduce((sum, s) => sum + s.cost, 0)),
    last_seen_at: last.toISOString(),
  };
}

/** Health of every agent with samples, busiest first. */
export function agentsHealth(samples: readonly AgentSample[]): AgentHealth[] {
  const byAgent = new Map<string, AgentSample[]>();
  for (const sample of samples) {
    const name = sample.agent ?? UNATTRIBUTED_AGENT;
    const list = byAgent.get(name) ?? [];
    list.push(sample);
    byAgent.set(name, list);
  }
  return [...byAgent]
    .map(([name, list]) => agentHealth(name, list))
    .sort((a, b) => b.requests - a.requests || a.agent_name.localeCompare(b.agent_name));
}
