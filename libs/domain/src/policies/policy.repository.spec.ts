import { storeTargets } from '../testing/stores';
import { ORG_A, ORG_B, useRepository } from '../testing/jest-helpers';
import { policyOverrides } from './policy.entity';
import { PolicyRepository } from './policy.repository';

describe.each(storeTargets(process.env.MONGODB_URI))('PolicyRepository ($name)', (target) => {
  const t = useRepository(target, (store) => new PolicyRepository(store));

  it('has no policy until one is written', async () => {
    expect(await t.repo.get(ORG_A)).toBeNull();
    expect(policyOverrides(null)).toEqual({});
  });

  it('replace stores exactly the given overrides, including the DECISIONS fields', async () => {
    const first = await t.repo.replace(ORG_A, {
      rpm_limit: 120,
      allowed_models: ['gpt-4o'],
      max_reasoning_tokens: 2048,
      allowed_skills: ['search'],
      budget_warning_thresholds: [50, 90],
      max_body_bytes: 5_000_000,
    });
    expect(first._id).toMatch(/^pol_/);
    expect(policyOverrides(first)).toEqual({
      rpm_limit: 120,
      allowed_models: ['gpt-4o'],
      max_reasoning_tokens: 2048,
      allowed_skills: ['search'],
      budget_warning_thresholds: [50, 90],
      max_body_bytes: 5_000_000,
    });
    const second = await t.repo.replace(ORG_A, { daily_budget: 10, pii_action: 'flag' }, 'starter');
    expect(second._id).toBe(first._id);
    expect(second.created_at).toEqual(first.created_at);
    expect(second.preset).toBe('starter');
    expect(policyOverrides(second)).toEqual({ daily_budget: 10, pii_action: 'flag' });
  });

  it('patch merges overrides and clearFields reverts single fields', async () => {
    await t.repo.patch(ORG_A, { rpm_limit: 60 });
    await t.repo.patch(ORG_A, { daily_budget: 5, hitl_cost_threshold: 1 });
    expect(policyOverrides(await t.repo.get(ORG_A))).toEqual({ rpm_limit: 60, daily_budget: 5, hitl_cost_threshold: 1 });
    await t.repo.clearFields(ORG_A, ['daily_budget']);
    expect(policyOverrides(await t.repo.get(ORG_A))).toEqual({ rpm_limit: 60, hitl_cost_threshold: 1 });
  });

  it('delete reverts to tier defaults (no policy)', async () => {
    await t.repo.patch(ORG_A, { rpm_limit: 60 });
    expect(await t.repo.delete(ORG_A)).toBe(true);
    expect(await t.repo.get(ORG_A)).toBeNull();
    expect(await t.repo.delete(ORG_A)).toBe(false);
  });

  it('isolates tenants: each organization has its own policy', async () => {
    await t.repo.replace(ORG_A, { rpm_limit: 60 });
    expect(await t.repo.get(ORG_B)).toBeNull();
    await t.repo.replace(ORG_B, { rpm_limit: 5 });
    await t.repo.patch(ORG_B, { daily_budget: 1 });
    expect(await t.repo.delete(ORG_B)).toBe(true);
    expect(policyOverrides(await t.repo.get(ORG_A))).toEqual({ rpm_limit: 60 });
  });
});
