import { asOrgId } from '@svc/domain';
import { bootRunners, RunnerApi, RunnerTestContext, seedKey } from './runner-helpers';

/** DECISIONS.md "Plan entitlement": the free and starter plans have no managed runners. */
describe('runner plan entitlement', () => {
  let ctx: RunnerTestContext;
  beforeAll(async () => {
    ctx = await bootRunners();
  });
  afterAll(() => ctx.stop());

  it.each(['free', 'starter'] as const)('403 feature_not_on_plan for a %s organization', async (plan) => {
    const org = asOrgId((await ctx.repos.organizations.create({ name: `${plan} org`, plan }))._id);
    const api = new RunnerApi(ctx.base, { 'X-SVC-API-Key': await seedKey(ctx.repos, org, ['admin:write']) });
    const res = await api.request('POST', '/', { provider_type: 'fake', tool_profile: 'locked', ttl_seconds: 600, runtime_version: '1' });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'feature_not_on_plan', gateway_error_code: 'GW_PLAN_004' });
    expect((await ctx.repos.runners.list(org)).total).toBe(0);
  });

  it.each(['free', 'starter'] as const)('403 feature_not_on_plan for a self-hosted registration in a %s organization', async (plan) => {
    const org = asOrgId((await ctx.repos.organizations.create({ name: `${plan} byovm org`, plan }))._id);
    const api = new RunnerApi(ctx.base, { 'X-SVC-API-Key': await seedKey(ctx.repos, org, ['admin:write']) });
    const register = await api.request('POST', '/byovm/register', { machine_id: `box-${plan}` });
    expect(register.status).toBe(403);
    expect(register.body.error).toMatchObject({ code: 'feature_not_on_plan', gateway_error_code: 'GW_PLAN_004' });
    expect((await ctx.repos.runners.list(org)).total).toBe(0);
  });

  /** DECISIONS.md "Organization plan": only `active` and `trialing` subscriptions pass; a runner is not recorded for the others. */
  it.each(['canceled', 'past_due'] as const)('403 subscription_inactive (GW_PLAN_001) on create and self-hosted registration (and in the canary) for a %s enterprise organization', async (status) => {
    const org = asOrgId((await ctx.repos.organizations.create({ name: `${status} org`, plan: 'enterprise', subscription_status: status }))._id);
    const api = new RunnerApi(ctx.base, { 'X-SVC-API-Key': await seedKey(ctx.repos, org, ['admin:write']) });
    const create = await api.request('POST', '/', { provider_type: 'fake', tool_profile: 'locked', ttl_seconds: 600, runtime_version: '1' });
    const register = await api.request('POST', '/byovm/register', { machine_id: `box-${status}` });
    for (const res of [create, register]) {
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ type: 'permission_error', code: 'subscription_inactive', gateway_error_code: 'GW_PLAN_001' });
      expect(res.body.error.message).toContain(status);
    }
    // The canary's create step is refused the same way (its report names the step's error).
    const canary = await api.request('POST', '/canary');
    expect(canary.body.steps[0]).toMatchObject({ step: 'create', status: 'failed', detail: { code: 'subscription_inactive', http_status: 403 } });
    expect((await ctx.repos.runners.list(org)).total).toBe(0);
  });

  it('an inactive subscription is reported before a plan without runners', async () => {
    const org = asOrgId((await ctx.repos.organizations.create({ name: 'canceled free org', plan: 'free', subscription_status: 'canceled' }))._id);
    const api = new RunnerApi(ctx.base, { 'X-SVC-API-Key': await seedKey(ctx.repos, org, ['admin:write']) });
    const res = await api.request('POST', '/', { provider_type: 'fake', tool_profile: 'locked', ttl_seconds: 600 });
    expect([res.status, res.body.error?.code]).toEqual([403, 'subscription_inactive']);
  });

  it('a trialing organization creates runners; once canceled its runners stay readable and can be terminated', async () => {
    const org = asOrgId((await ctx.repos.organizations.create({ name: 'trialing org', plan: 'growth', subscription_status: 'trialing' }))._id);
    const api = new RunnerApi(ctx.base, { 'X-SVC-API-Key': await seedKey(ctx.repos, org, ['admin:write']) });
    const runner = await api.createRunner();
    const byovm = await api.request('POST', '/byovm/register', { machine_id: 'box-trialing' });
    expect(byovm.status).toBe(201);
    await ctx.repos.organizations.update(org, { subscription_status: 'canceled' });
    expect((await api.request('POST', '/', { provider_type: 'fake', tool_profile: 'locked', ttl_seconds: 600 })).status).toBe(403);
    expect((await api.get(`/${runner.runner_id}`)).status).toBe(200);
    expect((await api.delete(`/byovm/${byovm.body.runner_id}`)).status).toBe(200);
    const terminated = await api.post(`/${runner.runner_id}/terminate`);
    expect([terminated.status, terminated.body.state]).toEqual([200, 'terminated']);
  });

  it('creates runners for a growth organization', async () => {
    const res = await ctx.admin.request('POST', '/', { provider_type: 'fake', tool_profile: 'locked', ttl_seconds: 600, runtime_version: '1' });
    expect(res.status).toBe(201);
  });
});
