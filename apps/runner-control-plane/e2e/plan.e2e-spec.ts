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

  it('creates runners for a growth organization', async () => {
    const res = await ctx.admin.request('POST', '/', { provider_type: 'fake', tool_profile: 'locked', ttl_seconds: 600, runtime_version: '1' });
    expect(res.status).toBe(201);
  });
});
