import { ApiProperty } from '@nestjs/swagger';
import type { UsageRecordEntity } from '@svc/domain';
import { costOf, GovernancePolicy, PII_TYPES, PiiType, pricedModel, StageId, STAGE_ORDER } from '@svc/governance';

/**
 * Policy simulation: the governance decisions of a window (usage records of population `governed`:
 * no idempotent replay, no refusal before governance) replayed, in time order, through the stages
 * whose decision depends on the policy and can be taken offline from what a usage record keeps
 * (`replay`: estimated tokens, body size, findings, skills, reasoning tokens). Stages that do not
 * depend on the policy (plan, entitlement, budget nodes, runner sessions, content safety and the
 * security scanner) keep the decision that was recorded. Nothing is written.
 */

export type ReplayRecord = Pick<UsageRecordEntity, '_id' | 'created_at' | 'provider' | 'model' | 'blocked_by' | 'estimated_cost' | 'cost' | 'status_code' | 'replay'>;

export type Outcome = 'allowed' | 'blocked' | 'needs_approval';

export interface Decision {
  outcome: Outcome;
  stage: StageId | null;
  code: string | null;
}

/** The stage that refuses with each `code` (usage records keep the code as `blocked_by`). */
export const STAGE_OF_CODE: Readonly<Record<string, StageId>> = {
  subscription_inactive: '0',
  model_not_on_plan: '0',
  plan_limit_exceeded: '0',
  request_too_large: '0.5',
  rate_limit: '1',
  feature_not_on_plan: '1.5',
  reasoning_cap_exceeded: '1.7',
  cost_limit: '2',
  daily_budget: '2',
  monthly_budget: '2',
  budget_hierarchy_exceeded: '2.5',
  session_budget_exceeded: '3',
  pii_detected: '4',
  content_safety_violation: '4.5',
  security_scan_blocked: '4.6',
  model_not_allowed: '5',
  skill_not_allowed: '5.5',
  approval_required: '6',
  approval_rejected: '6',
  approval_in_progress: '6',
};

export const STAGE_NAMES: Readonly<Record<StageId, string>> = {
  '0': 'Plan enforcement',
  '0.5': 'Body size limit',
  '1': 'Rate limit',
  '1.5': 'Plan entitlement',
  '1.7': 'Reasoning token cap',
  '2': 'Cost estimate',
  '2.5': 'Hierarchical budget',
  '3': 'Runner session budget',
  '4': 'PII scan',
  '4.5': 'Content safety',
  '4.6': 'Security scanner',
  '4.7': 'AI security classifier',
  '5': 'Model allowlist',
  '5.5': 'Skill allowlist',
  '6': 'HITL gate',
};

/** Stages replayed with the draft policy; the others keep the recorded decision. */
export const REPLAYED_STAGES: readonly StageId[] = ['0.5', '1', '1.7', '2', '4', '5', '5.5', '6'];

/** What the chain actually decided for a record. */
export function recordedDecision(record: Pick<ReplayRecord, 'blocked_by'>): Decision {
  const code = record.blocked_by;
  if (!code) return { outcome: 'allowed', stage: null, code: null };
  const stage = STAGE_OF_CODE[code] ?? null;
  return { outcome: code === 'approval_required' ? 'needs_approval' : 'blocked', stage, code };
}

/** Stage 5's matching: exact (case ignored) on the model, the model without route prefix or `provider/model`; `*` suffix is a prefix. */
export function modelAllowed(allowed: readonly string[], provider: string, model: string): boolean {
  if (allowed.length === 0) return true;
  const full = model.toLowerCase();
  const bare = full.slice(full.lastIndexOf('/') + 1);
  const candidates = [full, bare, `${provider.toLowerCase()}/${bare}`];
  return allowed.some((entry) => {
    const rule = entry.trim().toLowerCase();
    return rule.endsWith('*') ? candidates.some((c) => c.startsWith(rule.slice(0, -1))) : candidates.includes(rule);
  });
}

/** Whether the findings hold a type that `pii_action: block` refuses (CRITICAL or HIGH). */
export function piiBlocks(findings: Record<string, number>): boolean {
  return Object.keys(findings).some((type) => {
    const info = (PII_TYPES as Record<string, { severity: string } | undefined>)[type as PiiType];
    return info !== undefined && info.severity !== 'MEDIUM' && (findings[type] ?? 0) > 0;
  });
}

/** The stage 2 estimate: the recorded one, or re-priced from the replay tokens when the record has none. */
export function estimateOf(record: ReplayRecord): number {
  if (record.estimated_cost > 0) return record.estimated_cost;
  return costOf(pricedModel(record.provider, record.model), { input_tokens: record.replay?.estimated_input_tokens ?? 0, output_tokens: record.replay?.max_output_tokens ?? 0 });
}

const dayOf = (date: Date) => date.toISOString().slice(0, 10);
const monthOf = (date: Date) => date.toISOString().slice(0, 7);
const minuteOf = (date: Date) => Math.floor(date.getTime() / 60_000);

/** Mutable counters of one replay: requests per minute, spend per UTC day and month. */
export class ReplayState {
  private readonly rpm = new Map<number, number>();
  private readonly days = new Map<string, number>();
  private readonly months = new Map<string, number>();

  /** Spend before the window (the window's first day and month). */
  constructor(seed: { day?: [string, number]; month?: [string, number] } = {}) {
    if (seed.day) this.days.set(...seed.day);
    if (seed.month) this.months.set(...seed.month);
  }

  /** Stage 1: the fixed one-minute window; a refused request is not counted (as in the counter script). */
  admitRate(at: Date, limit: number): boolean {
    const minute = minuteOf(at);
    const count = this.rpm.get(minute) ?? 0;
    if (count >= limit) return false;
    this.rpm.set(minute, count + 1);
    return true;
  }

  daySpent(at: Date): number {
    return this.days.get(dayOf(at)) ?? 0;
  }

  monthSpent(at: Date): number {
    return this.months.get(monthOf(at)) ?? 0;
  }

  spend(at: Date, usd: number): void {
    this.days.set(dayOf(at), this.daySpent(at) + usd);
    this.months.set(monthOf(at), this.monthSpent(at) + usd);
  }
}

const block = (stage: StageId, code: string): Decision => ({ outcome: 'blocked', stage, code });

/**
 * Whether a record got through stage 6 although its estimate was over the threshold of the policy
 * in force: it held an approval (or a bypass), which the replay honours rather than asking again.
 * This is how a request held for approval and its approved re-submission are not both counted as
 * needing approval: the 202 record needs it, the re-submission carries it.
 */
export function heldApproval(record: ReplayRecord, estimate: number, current: GovernancePolicy | null): boolean {
  return current !== null && recordedDecision(record).outcome === 'allowed' && estimate > current.hitl_cost_threshold;
}

/**
 * One record through the chain with the draft policy, in SPEC.md stage order. `current` is the
 * policy in force, used to tell the records that passed stage 6 with an approval.
 */
export function replayRecord(record: ReplayRecord, policy: GovernancePolicy, state: ReplayState, current: GovernancePolicy | null = null): Decision {
  const recorded = recordedDecision(record);
  const kept = (stage: StageId) => recorded.outcome === 'blocked' && recorded.stage === stage;
  const replay = record.replay;
  if (kept('0')) return recorded;
  if ((replay?.body_bytes ?? 0) > policy.max_body_bytes) return block('0.5', 'request_too_large');
  if (!state.admitRate(record.created_at, policy.rpm_limit)) return block('1', 'rate_limit');
  if (kept('1.5')) return recorded;
  const reasoning = replay?.reasoning_tokens ?? null;
  if (reasoning !== null && policy.max_reasoning_tokens !== null && reasoning > policy.max_reasoning_tokens) return block('1.7', 'reasoning_cap_exceeded');
  const estimate = estimateOf(record);
  if (estimate > policy.max_cost_per_request) return block('2', 'cost_limit');
  if (state.daySpent(record.created_at) + estimate > policy.daily_budget) return block('2', 'daily_budget');
  if (state.monthSpent(record.created_at) + estimate > policy.monthly_budget) return block('2', 'monthly_budget');
  for (const stage of ['2.5', '3'] as const) if (kept(stage)) return recorded;
  if (policy.pii_scan_enabled && policy.pii_action === 'block' && piiBlocks(replay?.pii_findings ?? {})) return block('4', 'pii_detected');
  for (const stage of ['4.5', '4.6', '4.7'] as const) if (kept(stage)) return recorded;
  if (!modelAllowed(policy.allowed_models, record.provider, record.model)) return block('5', 'model_not_allowed');
  const skills = replay?.skills ?? [];
  if (policy.allowed_skills.length > 0 && skills.some((skill) => !policy.allowed_skills.includes(skill))) return block('5.5', 'skill_not_allowed');
  if (estimate > policy.hitl_cost_threshold) {
    // A reviewer's rejection stands wherever the draft still asks for approval.
    if (recorded.code === 'approval_rejected') return recorded;
    if (!heldApproval(record, estimate, current)) return { outcome: 'needs_approval', stage: '6', code: 'approval_required' };
  }
  // Allowed: it spends what it cost when it was served, else what it was estimated at.
  const served = recorded.outcome === 'allowed' && record.status_code < 400;
  state.spend(record.created_at, served ? record.cost : estimate);
  return { outcome: 'allowed', stage: null, code: null };
}

export class Examples {
  @ApiProperty({ type: 'integer' })
  count!: number;
  @ApiProperty({ type: [String], description: 'Up to five request ids (usage record ids)' })
  example_request_ids!: string[];
}

export class StageReport extends Examples {
  @ApiProperty({ enum: STAGE_ORDER })
  stage!: StageId;
  @ApiProperty()
  name!: string;
  /** Refusals by code, e.g. `{ daily_budget: 3, cost_limit: 1 }`. */
  @ApiProperty({ type: 'object', additionalProperties: { type: 'integer' }, description: 'Refusals by code, e.g. `{ "daily_budget": 3 }`' })
  codes!: Record<string, number>;
  /** Whether the stage was re-evaluated with the draft (false: the recorded decision was kept). */
  @ApiProperty({ description: 'Whether the stage was re-evaluated with the draft (false: the recorded decision was kept)' })
  replayed!: boolean;
}

export class SimulationTotals {
  @ApiProperty({ type: 'integer' })
  allowed!: number;
  @ApiProperty({ type: 'integer' })
  blocked!: number;
  @ApiProperty({ type: 'integer' })
  needs_approval!: number;
}

export class SimulationResult {
  @ApiProperty({ type: 'integer' })
  records_replayed!: number;
  @ApiProperty({ type: () => SimulationTotals, description: 'Outcomes under the policy in force' })
  current!: SimulationTotals;
  @ApiProperty({ type: () => SimulationTotals, description: 'Outcomes under the draft' })
  simulated!: SimulationTotals;
  /** Refusals under the draft, in stage order (stages that refuse nothing are left out). */
  @ApiProperty({ type: () => [StageReport], description: 'Refusals under the draft, in stage order (stages that refuse nothing are left out)' })
  blocked_by_stage!: StageReport[];
  @ApiProperty({ type: () => Examples })
  needs_approval!: Examples;
  @ApiProperty({ type: () => Examples })
  newly_blocked!: Examples;
  @ApiProperty({ type: () => Examples })
  newly_allowed!: Examples;
}

function note(target: Examples, id: string, max: number): void {
  target.count++;
  if (target.example_request_ids.length < max) target.example_request_ids.push(id);
}

/** Replays records (oldest first) and counts the outcomes, keeping up to `maxExamples` request ids per bucket. */
export function simulate(records: readonly ReplayRecord[], policy: GovernancePolicy, state: ReplayState, maxExamples = 5, current: GovernancePolicy | null = null): SimulationResult {
  const empty = (): Examples => ({ count: 0, example_request_ids: [] });
  const result: SimulationResult = {
    records_replayed: records.length,
    current: { allowed: 0, blocked: 0, needs_approval: 0 },
    simulated: { allowed: 0, blocked: 0, needs_approval: 0 },
    blocked_by_stage: [],
    needs_approval: empty(),
    newly_blocked: empty(),
    newly_allowed: empty(),
  };
  const stages = new Map<StageId, StageReport>();
  for (const record of records) {
    const before = recordedDecision(record).outcome;
    const after = replayRecord(record, policy, state, current);
    result.current[before]++;
    result.simulated[after.outcome]++;
    if (after.outcome === 'needs_approval') note(result.needs_approval, record._id, maxExamples);
    if (after.outcome === 'blocked' && after.stage) {
      let report = stages.get(after.stage);
      if (!report) {
        report = { stage: after.stage, name: STAGE_NAMES[after.stage], count: 0, codes: {}, example_request_ids: [], replayed: REPLAYED_STAGES.includes(after.stage) };
        stages.set(after.stage, report);
      }
      note(report, record._id, maxExamples);
      const code = after.code ?? 'unknown';
      report.codes[code] = (report.codes[code] ?? 0) + 1;
    }
    if (before !== 'blocked' && after.outcome === 'blocked') note(result.newly_blocked, record._id, maxExamples);
    if (before === 'blocked' && after.outcome === 'allowed') note(result.newly_allowed, record._id, maxExamples);
  }
  result.blocked_by_stage = STAGE_ORDER.filter((stage) => stages.has(stage)).map((stage) => stages.get(stage) as StageReport);
  return result;
}
