import { bootRunners, RunnerApi, RunnerTestContext } from './runner-helpers';

describe('runner feature flag and provider configuration', () => {
  describe('RUNNERS_ENABLED=false', () => {
    let t: RunnerTestContext;
    beforeAll(async () => {
      t = await bootRunners({ RUNNERS_ENABLED: 'false' });
    });
    afterAll(() => t.stop());

    it('refuses every runner route with 403 feature_disabled, after authentication', async () => {
      const seeded = await t.repos.runners.create(t.orgId, { provider_type: 'fake', tool_profile: 'locked', ttl_seconds: 600 });
      const byovm = await t.repos.runners.create(t.orgId, { provider_type: 'byovm', tool_profile: 'locked', ttl_seconds: 600, machine_id: 'm0' });
      const session = await t.repos.runnerSessions.create(t.orgId, { runner_id: seeded._id, ttl_seconds: 600, budget_usd: 5 });
      for (const res of [
        await t.admin.get('/'),
        await t.admin.post('/', { provider_type: 'fake', tool_profile: 'locked', ttl_seconds: 600 }),
        await t.admin.get(`/${seeded._id}`),
        await t.admin.post(`/${seeded._id}/start`),
        await t.admin.post(`/${seeded._id}/stop`, undefined, { session_id: session._id }),
        await t.admin.exec(seeded._id, session._id, ['echo', 'hi']),
        await t.admin.post(`/${seeded._id}/terminate`),
        await t.admin.get(`/${seeded._id}/events`),
        await t.admin.get(`/${seeded._id}/stream`),
        await t.admin.post('/canary'),
        await t.admin.post('/byovm/register', { machine_id: 'm1' }),
        await t.admin.delete(`/byovm/${byovm._id}`),
      ]) {
        expect(res.status).toBe(403);
        expect(res.body.error).toMatchObject({ type: 'permission_error', code: 'feature_disabled' });
      }
      expect((await new RunnerApi(t.base, {}).get('/')).status).toBe(401);
      expect(await t.repos.runners.findById(t.orgId, seeded._id)).toMatchObject({ state: 'provisioning', version: 1 });
      expect(await t.repos.runners.findById(t.orgId, byovm._id)).toMatchObject({ state: 'provisioning', machine_id: 'm0' });
      expect((await t.repos.runnerEvents.listByRunner(t.orgId, seeded._id)).total).toBe(0);
    });

    it('still answers /health and /prerequisites, reporting the flag', async () => {
      const health = await new RunnerApi(t.base, {}).get('/health');
      expect(health.status).toBe(200);
      expect(health.body).toMatchObject({ status: 'disabled', subsystems: { feature_flag: false, provider_available: true } });
      const prerequisites = await t.admin.get('/prerequisites');
      expect(prerequisites.status).toBe(200);
      expect(prerequisites.body).toMatchObject({ ready: false, missing: ['feature_flag'] });
    });
  });

  describe('RUNNER_LOCAL_ENABLED unset (the default: off)', () => {
    let t: RunnerTestContext;
    beforeAll(async () => {
      t = await bootRunners();
    });
    afterAll(() => t.stop());

    it('offers only the fake provider', async () => {
      const health = await new RunnerApi(t.base, {}).get('/health');
      expect(health.body).toMatchObject({ status: 'ok', provider: 'fake', providers: { local: { configured: false, detail: expect.stringContaining('RUNNER_LOCAL_ENABLED=true') } } });
      const res = await t.admin.post('/', { provider_type: 'local', tool_profile: 'locked', ttl_seconds: 600 });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'provider_not_configured', message: expect.stringContaining('configured: fake') });
      const prerequisites = await t.admin.get('/prerequisites');
      expect(prerequisites.body).toMatchObject({ ready: true, missing: [] });
    });
  });

  describe('RUNNER_LOCAL_ENABLED=false', () => {
    let t: RunnerTestContext;
    beforeAll(async () => {
      t = await bootRunners({ RUNNER_LOCAL_ENABLED: 'false' });
    });
    afterAll(() => t.stop());

    it('offers only the fake provider', async () => {
      expect((await new RunnerApi(t.base, {}).get('/health')).body).toMatchObject({ provider: 'fake', providers: { local: { configured: false } } });
      expect((await t.admin.post('/', { provider_type: 'local', tool_profile: 'locked', ttl_seconds: 600 })).body.error.code).toBe('provider_not_configured');
    });
  });
});
