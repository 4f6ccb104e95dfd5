import { ABSOLUTE_MAX_BODY_BYTES, BYTES_PER_MB } from './limits';
import { defaultPolicy, effectivePolicy } from './policy';
import { normalizePolicyInput } from './policy-input';

describe('effectivePolicy', () => {
  it('gives the tier defaults without overrides', () => {
    expect(effectivePolicy('starter')).toEqual({
      rpm_limit: 60,
      daily_budget: 25,
      monthly_budget: 250,
      max_cost_per_request: 0.5,
      pii_scan_enabled: true,
      pii_action: 'block',
      allowed_models: [],
      hitl_cost_threshold: 3,
      max_reasoning_tokens: null,
      allowed_skills: [],
      budget_warning_thresholds: [50, 75, 90],
      max_body_bytes: 10 * BYTES_PER_MB,
    });
  });

  it('overlays overrides and keeps defaults for unset fields', () => {
    const policy = effectivePolicy('growth', { rpm_limit: 42, pii_action: 'flag', allowed_models: ['gpt-4o'], daily_budget: undefined });
    expect(policy.rpm_limit).toBe(42);
    expect(policy.pii_action).toBe('flag');
    expect(policy.allowed_models).toEqual(['gpt-4o']);
    expect(policy.daily_budget).toBe(100);
    expect(policy.monthly_budget).toBe(2000);
  });

  it('accepts tier aliases and falls back to free for unknown tiers', () => {
    expect(effectivePolicy('team').rpm_limit).toBe(300);
    expect(effectivePolicy('pro').rpm_limit).toBe(60);
    expect(effectivePolicy('platinum').rpm_limit).toBe(10);
  });

  it('treats null as "keep the default" except for max_reasoning_tokens', () => {
    const overrides = { rpm_limit: null, max_reasoning_tokens: null } as unknown as Parameters<typeof effectivePolicy>[1];
    expect(effectivePolicy('free', overrides).rpm_limit).toBe(10);
    expect(effectivePolicy('free', { max_reasoning_tokens: 2048 }).max_reasoning_tokens).toBe(2048);
    expect(effectivePolicy('free', overrides).max_reasoning_tokens).toBeNull();
  });

  it('clamps the body limit to the absolute cap and shares no arrays', () => {
    expect(effectivePolicy('enterprise', { max_body_bytes: 10 ** 12 }).max_body_bytes).toBe(ABSOLUTE_MAX_BODY_BYTES);
    const models = ['a'];
    const policy = effectivePolicy('free', { allowed_models: models });
    models.push('b');
    expect(policy.allowed_models).toEqual(['a']);
    expect(defaultPolicy('free').budget_warning_thresholds).not.toBe(defaultPolicy('free').budget_warning_thresholds);
  });
});

describe('normalizePolicyInput', () => {
  it('accepts a full valid policy', () => {
    const result = normalizePolicyInput({
      rpm_limit: 120,
      daily_budget: 50,
      monthly_budget: 500,
      max_cost_per_request: 1.5,
      pii_scan_enabled: false,
      pii_action: 'allow',
      allowed_models: ['gpt-4o', ' claude-sonnet-4 ', 'gpt-4o'],
      hitl_cost_threshold: 0,
      max_reasoning_tokens: 8192,
      allowed_skills: ['search'],
      budget_warning_thresholds: [90, 50, 75, 90],
      max_body_bytes: 200 * BYTES_PER_MB,
    });
    expect(result).toEqual({
      ok: true,
      value: {
        rpm_limit: 120,
        daily_budget: 50,
        monthly_budget: 500,
        max_cost_per_request: 1.5,
        pii_scan_enabled: false,
        pii_action: 'allow',
        allowed_models: ['gpt-4o', 'claude-sonnet-4'],
        hitl_cost_threshold: 0,
        max_reasoning_tokens: 8192,
        allowed_skills: ['search'],
        budget_warning_thresholds: [50, 75, 90],
        max_body_bytes: 200 * BYTES_PER_MB,
      },
    });
  });

  it('normalizes rate_limit_rpm to rpm_limit', () => {
    expect(normalizePolicyInput({ rate_limit_rpm: 30 })).toEqual({ ok: true, value: { rpm_limit: 30 } });
    expect(normalizePolicyInput({ rate_limit_rpm: 30, rpm_limit: 30 })).toEqual({ ok: true, value: { rpm_limit: 30 } });
    expect(normalizePolicyInput({ rate_limit_rpm: 30, rpm_limit: 31 })).toEqual({
      ok: false,
      errors: [{ field: 'rate_limit_rpm', message: 'conflicts with rpm_limit; send one of them' }],
    });
  });

  it('reports every bad field at once, by name', () => {
    const result = normalizePolicyInput({
      rpm_limit: 1.5,
      rate_limit_rpm: undefined,
      daily_budget: -1,
      monthly_budget: '100',
      pii_scan_enabled: 'yes',
      pii_action: 'redact',
      allowed_models: ['ok', ''],
      max_reasoning_tokens: 0,
      budget_warning_thresholds: [0, 101],
      max_body_bytes: 200 * BYTES_PER_MB + 1,
      colour: 'blue',
    });
    expect(result.ok).toBe(false);
    const fields = result.ok ? [] : result.errors.map((error) => error.field);
    expect(fields).toEqual([
      'colour',
      'rpm_limit',
      'daily_budget',
      'monthly_budget',
      'pii_scan_enabled',
      'pii_action',
      'allowed_models[1]',
      'max_reasoning_tokens',
      'budget_warning_thresholds[0]',
      'budget_warning_thresholds[1]',
      'max_body_bytes',
    ]);
    const bodyError = result.ok ? undefined : result.errors.find((error) => error.field === 'max_body_bytes');
    expect(bodyError?.message).toBe('must be an integer from 1 to 209715200 bytes (200 MB)');
  });

  it('accepts null for max_reasoning_tokens, a case-insensitive pii_action and ignores org_id', () => {
    expect(normalizePolicyInput({ max_reasoning_tokens: null, pii_action: ' Flag ', org_id: 'org_1' })).toEqual({
      ok: true,
      value: { max_reasoning_tokens: null, pii_action: 'flag' },
    });
  });

  it('rejects non-objects and can let unknown fields through', () => {
    expect(normalizePolicyInput([])).toEqual({ ok: false, errors: [{ field: '', message: 'policy must be a JSON object' }] });
    expect(normalizePolicyInput(null).ok).toBe(false);
    expect(normalizePolicyInput({ extra: 1, rpm_limit: 5 }, { allowUnknown: true })).toEqual({ ok: true, value: { rpm_limit: 5 } });
  });

  it('limits list sizes', () => {
    const many = Array.from({ length: 1001 }, (_, i) => `m${i}`);
    const result = normalizePolicyInput({ allowed_models: many, allowed_skills: 'search' });
    expect(result.ok ? [] : result.errors).toEqual([
      { field: 'allowed_models', message: 'must have at most 1000 entries' },
      { field: 'allowed_skills', message: 'must be an array of strings' },
    ]);
  });
});
