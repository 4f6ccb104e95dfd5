import { GatewayError } from '@svc/platform';
import { contextFor } from '../chain/governance.fixtures';
import { planQuotaRefusal, planStage } from './0-plan';

const blocked = (result: ReturnType<typeof planStage>): GatewayError => {
  if (result.outcome !== 'BLOCK') throw new Error(`expected BLOCK, got ${result.outcome}`);
  return result.error;
};

describe('stage 0, plan enforcement', () => {
  it('allows active and trialing subscriptions with a model on the plan', () => {
    expect(planStage(contextFor()).outcome).toBe('ALLOW');
    expect(planStage(contextFor({ profile: { subscriptionStatus: 'trialing' } })).outcome).toBe('ALLOW');
  });

  it.each(['past_due', 'canceled'])('refuses a %s subscription with GW_PLAN_001', (status) => {
    const error = blocked(planStage(contextFor({ profile: { subscriptionStatus: status } })));
    expect(error.status).toBe(403);
    expect(error.body).toMatchObject({ type: 'permission_error', code: 'subscription_inactive', gateway_error_code: 'GW_PLAN_001' });
    expect(error.body.message).toContain(status);
    expect(error.body.remediation).toBeTruthy();
  });

  it('refuses a model that is not on the plan, after its route prefix', () => {
    const ctx = contextFor({ profile: { tier: 'free' }, input: { model: 'openrouter/claude-opus-4-1', provider: 'openrouter' } });
    const error = blocked(planStage(ctx));
    expect(error.body).toMatchObject({ code: 'model_not_on_plan', gateway_error_code: 'GW_PLAN_003', param: 'model', type: 'permission_error' });
    expect(planStage(contextFor({ profile: { tier: 'starter' }, input: { model: 'claude-opus-4-1' } })).outcome).toBe('ALLOW');
  });

  it('renders the daily quota refusal as 429 insufficient_quota with Retry-After to UTC midnight', () => {
    const ctx = contextFor({ profile: { tier: 'free' }, input: { now: new Date('2025-03-01T23:59:00Z') } });
    const error = blocked(planQuotaRefusal(ctx, 100, 100));
    expect(error.status).toBe(429);
    expect(error.body).toMatchObject({ type: 'insufficient_quota', code: 'plan_limit_exceeded', gateway_error_code: 'GW_PLAN_002' });
    expect(error.body.message).toBe('Daily request quota of the free plan exceeded: 100/100 requests today.');
    expect(error.headers['Retry-After']).toBe('60');
  });
});
