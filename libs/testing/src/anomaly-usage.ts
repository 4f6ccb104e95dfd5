/**
 * Seeded usage for the cost-anomaly tests (the rules' specs in @svc/webhooks and the dispatcher's
 * e2e): one organization per rule that should fire, and organizations that must stay quiet. Each
 * builder takes the organization and the moment of the check.
 */
import { randomBytes } from 'node:crypto';
import type { UsageRecordEntity } from '@svc/domain';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

export function usageRecord(orgId: string, at: number, fields: Partial<UsageRecordEntity> = {}): UsageRecordEntity {
  return {
    _id: `gw_${randomBytes(10).toString('hex')}`,
    org_id: orgId,
    key_id: null,
    team_id: null,
    provider: 'openai',
    model: 'gpt-4o-mini',
    endpoint: '/v1/chat/completions',
    stream: false,
    status_code: 200,
    blocked_by: null,
    input_tokens: 100,
    output_tokens: 50,
    estimated_cost: fields.cost ?? 0,
    cost: 0,
    latency_ms: 100,
    upstream_latency_ms: 90,
    governance_ms: 1,
    agent: null,
    runner_id: null,
    session_id: null,
    created_at: new Date(at),
    replay: {
      estimated_input_tokens: 100,
      max_output_tokens: 4096,
      body_bytes: 200,
      pii_findings: {},
      safety_findings: {},
      security_findings: {},
      skills: [],
      reasoning_tokens: null,
    },
    ...fields,
  };
}

const times = (count: number, at: (i: number) => number) => Array.from({ length: count }, (_, i) => at(i));

/** $1 an hour for a week, then $5 in the last hour: hourly_spike only. */
export function hourlySpikeUsage(orgId: string, now: number): UsageRecordEntity[] {
  return [
    ...times(168, (i) => now - (i + 1) * HOUR_MS - 10 * MINUTE_MS).map((at) => usageRecord(orgId, at, { cost: 1, agent: 'bot' })),
    usageRecord(orgId, now - 10 * MINUTE_MS, { cost: 5, agent: 'bot' }),
  ];
}

/** A new organization (free tier, $10 daily budget) whose crawler spent $6 in the last hour: runaway_agent only. */
export function runawayAgentUsage(orgId: string, now: number): UsageRecordEntity[] {
  return times(3, (i) => now - (i + 1) * 5 * MINUTE_MS).map((at) => usageRecord(orgId, at, { cost: 2, agent: 'crawler' }));
}

/** 20 requests at $0.01 over the previous day, then 6 at $0.10 on a costlier model: model_drift only. */
export function modelDriftUsage(orgId: string, now: number): UsageRecordEntity[] {
  return [
    ...times(20, (i) => now - HOUR_MS - (i + 1) * HOUR_MS).map((at) => usageRecord(orgId, at, { cost: 0.01, agent: 'summarizer', model: 'gpt-4o-mini' })),
    ...times(6, (i) => now - (i + 1) * 5 * MINUTE_MS).map((at) => usageRecord(orgId, at, { cost: 0.1, agent: 'summarizer', model: 'gpt-4o' })),
  ];
}

/** The same model (gpt-4o) as the day before with 10x heavier prompts: no switch of models, nothing fires. */
export function heavierPromptsUsage(orgId: string, now: number): UsageRecordEntity[] {
  return [
    ...times(20, (i) => now - HOUR_MS - (i + 1) * HOUR_MS).map((at) => usageRecord(orgId, at, { cost: 0.01, agent: 'summarizer', model: 'gpt-4o' })),
    ...times(6, (i) => now - (i + 1) * 5 * MINUTE_MS).map((at) => usageRecord(orgId, at, { cost: 0.1, agent: 'summarizer', model: 'gpt-4o', input_tokens: 20_000 })),
  ];
}

/** 3 requests in this hour on each of the 7 previous days, 40 in the last hour: volume_surge only. */
export function volumeSurgeUsage(orgId: string, now: number): UsageRecordEntity[] {
  const previous = [1, 2, 3, 4, 5, 6, 7].flatMap((day) => times(3, (i) => now - day * DAY_MS - (i + 1) * 10 * MINUTE_MS));
  return [
    ...previous.map((at) => usageRecord(orgId, at, { cost: 0.001 })),
    ...times(40, (i) => now - (i + 1) * MINUTE_MS).map((at) => usageRecord(orgId, at, { cost: 0.001 })),
  ];
}

/** Six $1 requests every hour for four days and in the last hour: every rule has a baseline, none fires. */
export function steadyUsage(orgId: string, now: number): UsageRecordEntity[] {
  return times(6 * 24 * 4 + 6, (i) => now - (i + 1) * 10 * MINUTE_MS + 5 * MINUTE_MS).map((at) => usageRecord(orgId, at, { cost: 1, agent: 'steady' }));
}

/** Two hours old, $50 in the last hour and nothing to compare with: nothing fires. */
export function shortHistoryUsage(orgId: string, now: number): UsageRecordEntity[] {
  return [
    usageRecord(orgId, now - 2 * HOUR_MS, { cost: 0.5 }),
    ...times(25, (i) => now - (i + 1) * 2 * MINUTE_MS).map((at) => usageRecord(orgId, at, { cost: 2 })),
  ];
}
