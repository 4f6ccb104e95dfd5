import { contextFor, chatBody } from '../chain/governance.fixtures';
import { entitlementStage } from './1.5-plan-entitlement';

describe('stage 1.5, plan entitlement', () => {
  it('allows streaming up to 4,096 max tokens on free, and beyond on paid plans', () => {
    expect(entitlementStage(contextFor({ profile: { tier: 'free' }, input: { stream: true, body: chatBody('hi', { max_tokens: 4096 }) } })).outcome).toBe('ALLOW');
    expect(entitlementStage(contextFor({ profile: { tier: 'starter' }, input: { stream: true, body: chatBody('hi', { max_tokens: 16000 }) } })).outcome).toBe('ALLOW');
  });

  it('refuses streaming above the free limit with GW_PLAN_004 feature_not_on_plan', () => {
    const result = entitlementStage(contextFor({ profile: { tier: 'free' }, input: { stream: true, body: chatBody('hi', { max_tokens: 8000 }) } }));
    if (result.outcome !== 'BLOCK') throw new Error('expected BLOCK');
    expect(result.error.status).toBe(403);
    expect(result.error.body).toMatchObject({ type: 'permission_error', code: 'feature_not_on_plan', gateway_error_code: 'GW_PLAN_004', param: 'max_tokens' });
    expect(result.error.body.remediation).toContain('max_tokens');
  });

  it('refuses runner traffic on starter and HITL bypass below enterprise', () => {
    const runner = { runnerId: 'run_1', sessionId: 'ses_1', proof: 'x' };
    const verified = (tier: 'starter' | 'growth') => {
      const ctx = contextFor({ profile: { tier }, input: { runner } });
      ctx.runnerProofValid = true;
      return ctx;
    };
    expect(entitlementStage(verified('starter')).outcome).toBe('BLOCK');
    expect(entitlementStage(verified('growth')).outcome).toBe('ALLOW');
    // Runner headers whose proof does not verify: an ordinary request of the key.
    expect(entitlementStage(contextFor({ profile: { tier: 'starter' }, input: { runner } })).outcome).toBe('ALLOW');
    expect(entitlementStage(contextFor({ profile: { tier: 'growth' }, input: { hitlBypass: true } })).outcome).toBe('BLOCK');
    expect(entitlementStage(contextFor({ profile: { tier: 'enterprise' }, input: { hitlBypass: true } })).outcome).toBe('ALLOW');
  });
});
