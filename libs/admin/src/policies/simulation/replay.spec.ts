import { defaultPolicy, GovernancePolicy } from '@svc/governance';
import { modelAllowed, piiBlocks, recordedDecision, ReplayRecord, replayRecord, ReplayState, simulate } from './replay';

const T0 = Date.UTC(2025, 0, 15, 10, 0, 0);
let n = 0;

function record(fields: Partial<Omit<ReplayRecord, 'replay'>> & { replay?: Partial<ReplayRecord['replay']> } = {}): ReplayRecord {
  n += 1;
  const { replay, ...rest } = fields;
  return {
    _id: `gw_${n}`,
    created_at: new Date(T0 + n),
    provider: 'openai',
    model: 'gpt-4o-mini',
    blocked_by: null,
    estimated_cost: 0.01,
    cost: 0.005,
    status_code: 200,
    replay: { estimated_input_tokens: 10, max_output_tokens: 10, body_bytes: 100, pii_findings: {}, safety_findings: {}, security_findings: {}, skills: [], reasoning_tokens: null, ...replay },
    ...rest,
  };
}

const policy = (fields: Partial<GovernancePolicy> = {}): GovernancePolicy => ({ ...defaultPolicy('growth'), ...fields });
const decide = (r: ReplayRecord, p = policy(), state = new ReplayState()) => replayRecord(r, p, state);

describe('policy replay', () => {
  it('replays the policy-dependent stages in SPEC order', () => {
    expect(decide(record({ replay: { body_bytes: 2_000 } }), policy({ max_body_bytes: 1_000 }))).toEqual({ outcome: 'blocked', stage: '0.5', code: 'request_too_large' });
    expect(decide(record({ replay: { reasoning_tokens: 5_000 } }), policy({ max_reasoning_tokens: 1_000 }))).toMatchObject({ stage: '1.7', code: 'reasoning_cap_exceeded' });
    expect(decide(record({ replay: { reasoning_tokens: 5_000 } }))).toMatchObject({ outcome: 'allowed' });
    expect(decide(record({ estimated_cost: 0.5 }), policy({ max_cost_per_request: 0.1 }))).toMatchObject({ stage: '2', code: 'cost_limit' });
    expect(decide(record({ replay: { pii_findings: { credit_card: 1 } } }))).toMatchObject({ stage: '4', code: 'pii_detected' });
    expect(decide(record({ replay: { pii_findings: { credit_card: 1 } } }), policy({ pii_scan_enabled: false }))).toMatchObject({ outcome: 'allowed' });
    expect(decide(record({ model: 'claude-haiku-4-5' }), policy({ allowed_models: ['gpt-*'] }))).toMatchObject({ stage: '5', code: 'model_not_allowed' });
    expect(decide(record({ replay: { skills: ['search', 'shell'] } }), policy({ allowed_skills: ['search'] }))).toMatchObject({ stage: '5.5', code: 'skill_not_allowed' });
    expect(decide(record({ estimated_cost: 20 }), policy({ max_cost_per_request: 100 }))).toEqual({ outcome: 'needs_approval', stage: '6', code: 'approval_required' });
  });

  it('keeps the recorded decision of stages that do not depend on the policy, in their place in the order', () => {
    for (const [code, stage] of [['model_not_on_plan', '0'], ['feature_not_on_plan', '1.5'], ['budget_hierarchy_exceeded', '2.5'], ['session_budget_exceeded', '3'], ['content_safety_violation', '4.5'], ['security_scan_blocked', '4.6']]) {
      expect(decide(record({ blocked_by: code, status_code: 403 }))).toEqual({ outcome: 'blocked', stage, code });
    }
    expect(decide(record({ blocked_by: 'budget_hierarchy_exceeded', estimated_cost: 5 }), policy({ max_cost_per_request: 1 }))).toMatchObject({ stage: '2' });
  });

  it('keeps a reviewer’s rejection as a stage 6 refusal wherever the draft still asks for approval', () => {
    const rejected = record({ blocked_by: 'approval_rejected', status_code: 403, estimated_cost: 20, cost: 0 });
    expect(recordedDecision(rejected)).toEqual({ outcome: 'blocked', stage: '6', code: 'approval_rejected' });
    expect(decide(rejected, policy({ max_cost_per_request: 100 }))).toEqual({ outcome: 'blocked', stage: '6', code: 'approval_rejected' });
    expect(decide(rejected, policy({ max_cost_per_request: 100, hitl_cost_threshold: 50 }))).toEqual({ outcome: 'allowed', stage: null, code: null });
    expect(decide(rejected, policy({ max_cost_per_request: 10 }))).toMatchObject({ stage: '2', code: 'cost_limit' });
  });

  it('honours the approval a served request held: it and its 202 are not both counted as needing approval', () => {
    const current = policy({ max_cost_per_request: 100, hitl_cost_threshold: 10 });
    const held = record({ blocked_by: 'approval_required', status_code: 202, estimated_cost: 20, cost: 0 });
    const resubmitted = record({ estimated_cost: 20, cost: 18 });
    const cheaper = record({ estimated_cost: 7, cost: 6 });
    const lower = policy({ max_cost_per_request: 100, hitl_cost_threshold: 5 });
    expect(replayRecord(resubmitted, lower, new ReplayState(), current)).toEqual({ outcome: 'allowed', stage: null, code: null });
    expect(replayRecord(held, lower, new ReplayState(), current)).toMatchObject({ outcome: 'needs_approval', stage: '6' });
    expect(replayRecord(cheaper, lower, new ReplayState(), current)).toMatchObject({ outcome: 'needs_approval', stage: '6' });
    expect(replayRecord(resubmitted, lower, new ReplayState())).toMatchObject({ outcome: 'needs_approval' });

    const same = simulate([held, resubmitted], current, new ReplayState(), 5, current);
    expect(same.current).toEqual({ allowed: 1, blocked: 0, needs_approval: 1 });
    expect(same.simulated).toEqual(same.current);
    expect(same.needs_approval).toEqual({ count: 1, example_request_ids: [held._id] });
    expect(simulate([held, resubmitted], current, new ReplayState()).simulated).toEqual({ allowed: 0, blocked: 0, needs_approval: 2 });
  });

  it('counts requests per fixed minute and does not count refused ones', () => {
    const state = new ReplayState();
    const p = policy({ rpm_limit: 2 });
    const minute = [0, 1, 2, 3].map((i) => record({ created_at: new Date(T0 + i * 1000) }));
    expect(minute.map((r) => decide(r, p, state).outcome)).toEqual(['allowed', 'allowed', 'blocked', 'blocked']);
    expect(decide(record({ created_at: new Date(T0 + 60_000) }), p, state).outcome).toBe('allowed');
    const bodyState = new ReplayState();
    const small = policy({ rpm_limit: 1, max_body_bytes: 50 });
    expect(decide(record({ created_at: new Date(T0) }), small, bodyState).stage).toBe('0.5');
    expect(decide(record({ created_at: new Date(T0 + 1) , replay: { body_bytes: 10 } }), small, bodyState).outcome).toBe('allowed');
  });

  it('accumulates daily and monthly spend of allowed requests, seeded with the spend before the window', () => {
    const state = new ReplayState({ day: ['2025-01-15', 0.98], month: ['2025-01', 0.98] });
    const p = policy({ daily_budget: 1, monthly_budget: 1.5 });
    expect(decide(record({ estimated_cost: 0.01, cost: 0.01 }), p, state).outcome).toBe('allowed');
    expect(decide(record({ estimated_cost: 0.02 }), p, state)).toMatchObject({ stage: '2', code: 'daily_budget' });
    const nextDay = new Date(T0 + 86_400_000);
    expect(decide(record({ created_at: nextDay, estimated_cost: 0.5, cost: 0.5 }), p, state).outcome).toBe('allowed');
    expect(decide(record({ created_at: nextDay, estimated_cost: 0.2 }), p, state)).toMatchObject({ code: 'monthly_budget' });
  });

  it('matches the allowlist like stage 5 and PII severities like stage 4', () => {
    expect(modelAllowed([], 'openai', 'x')).toBe(true);
    expect(modelAllowed(['GPT-4o-mini'], 'openai', 'gpt-4o-mini')).toBe(true);
    expect(modelAllowed(['groq/llama-3.3-70b'], 'groq', 'llama-3.3-70b')).toBe(true);
    expect(modelAllowed(['llama-3.3-70b'], 'groq', 'groq/llama-3.3-70b')).toBe(true);
    expect(modelAllowed(['gpt-4o'], 'openai', 'gpt-4o-mini')).toBe(false);
    expect(piiBlocks({ email: 3, icd10_code: 1 })).toBe(false);
    expect(piiBlocks({ openai_api_key: 1 })).toBe(true);
    expect(piiBlocks({ UNKNOWN_NER_TYPE: 1 })).toBe(false);
  });

  it('summarizes current and simulated outcomes with examples per stage', () => {
    const records = [record(), record({ model: 'claude-x' }), record({ blocked_by: 'model_not_allowed', status_code: 403, model: 'gpt-4o' }), record({ blocked_by: 'approval_required', status_code: 202 })];
    expect(recordedDecision(records[3]).outcome).toBe('needs_approval');
    const result = simulate(records, policy({ allowed_models: ['gpt-4o*'] }), new ReplayState(), 1);
    expect(result.current).toEqual({ allowed: 2, blocked: 1, needs_approval: 1 });
    expect(result.simulated).toEqual({ allowed: 3, blocked: 1, needs_approval: 0 });
    expect(result.blocked_by_stage).toEqual([{ stage: '5', name: 'Model allowlist', count: 1, codes: { model_not_allowed: 1 }, example_request_ids: [records[1]._id], replayed: true }]);
    expect(result.newly_blocked).toEqual({ count: 1, example_request_ids: [records[1]._id] });
    expect(result.newly_allowed).toEqual({ count: 1, example_request_ids: [records[2]._id] });
  });
});
