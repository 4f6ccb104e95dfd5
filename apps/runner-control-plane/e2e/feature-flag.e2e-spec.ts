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
      for (const res of [
        await t.admin.get('/'),
        await t.admin.post('/', { provider_type: 'fake', tool_profile: 'locked', ttl_seconds: 600 }),
        await t.admin.get(`/${seeded._id}`),
        await t.admin.post(`/${seeded._id}/start`),
        await t.admin.get(`/${seeded._id}/events`),
        await t.admin.get(`/${seeded._id}/stream`),
        await t.admin.post('/canary'),
        await t.admin.post('/byovm/register', { machine_id: 'm1' }),
      ]) {
        expect(res.status).toBe(403);
        expect(res.body.error).toMatchObject({ type: 'permission_error', code: 'feature_disabled' });
      }
      expect((await new RunnerApi(t.base, {}).get('/')).status).toBe(401);
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

  describe('RUNNER_LOCAL_ENABLED=false', () => {
    let t: RunnerTestContext;
    beforeAll(async () => {
      t = await bootRunners({ RUNNER_LOCAL_ENABLED: 'false' });
    });
    afterAll(() => t.stop());

    it('offers only the fake provider', async () => {
      const health = await new RunnerApi(t.base, {}).get('/health');
      expect(health.body).toMatchObject({ status: 'ok', provider: 'fake', providers: { local: { configured: false } } });
      const res = await t.admin.post('/', { provider_type: 'local', tool_profile: 'locked', ttl_seconds: 600 });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'provider_not_configured', message: expect.stringContaining('configured: fake') });
      const prerequisites = await t.admin.get('/prerequisites');
      expect(prerequisites.body).toMatchObject({ ready: true, missing: [] });
    });
  });
});
