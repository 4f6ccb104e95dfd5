import { bootRunners, LOCAL_ON, RunnerApi, RunnerTestContext } from './runner-helpers';

/** SPEC.md runner RBAC: read for Viewer, Operator, Admin; create/start/stop/exec for Operator, Admin; terminate for Admin. */
describe('runner RBAC', () => {
  let t: RunnerTestContext;
  beforeAll(async () => {
    t = await bootRunners(LOCAL_ON);
  });
  afterAll(() => t.stop());

  const denied = (res: { status: number; body: Record<string, { code?: string; type?: string }> }) => {
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ type: 'permission_error', code: 'permission_denied' });
  };

  /** Everything a role may or may not do, against runners the admin key set up. */
  async function exercise(api: RunnerApi) {
    const runner = await t.admin.createRunner();
    const session = await t.admin.startSession(runner.runner_id);
    const ready = await t.admin.createRunner();
    const byovm = await t.admin.post('/byovm/register', { machine_id: `m-${Math.random()}` });
    return {
      list: await api.get('/'),
      get: await api.get(`/${runner.runner_id}`),
      events: await api.get(`/${runner.runner_id}/events`),
      prerequisites: await api.get('/prerequisites'),
      exec: await api.exec(runner.runner_id, session.session_id, ['echo', 'hi']),
      stop: await api.post(`/${runner.runner_id}/stop`, undefined, { session_id: session.session_id }),
      start: await api.post(`/${ready.runner_id}/start`),
      create: await api.post('/', { provider_type: 'fake', tool_profile: 'locked', ttl_seconds: 600 }),
      canary: await api.post('/canary'),
      register: await api.post('/byovm/register', { machine_id: `m-${Math.random()}` }),
      terminate: await api.post(`/${ready.runner_id}/terminate`),
      deregister: await api.delete(`/byovm/${byovm.body.runner_id}`),
    };
  }

  it.each(['Member'] as const)('%s (Viewer) reads only', async (role) => {
    const r = await exercise(t.role(role));
    for (const res of [r.list, r.get, r.events, r.prerequisites]) expect(res.status).toBe(200);
    for (const res of [r.exec, r.stop, r.start, r.create, r.canary, r.register, r.terminate, r.deregister]) denied(res);
  });

  it.each(['Operator', 'Manager'] as const)('%s creates, starts, stops and execs but cannot terminate', async (role) => {
    const r = await exercise(t.role(role));
    for (const res of [r.list, r.get, r.events, r.prerequisites, r.exec, r.stop, r.start, r.canary]) expect(res.status).toBe(200);
    for (const res of [r.create, r.register]) expect(res.status).toBe(201);
    denied(r.terminate);
    denied(r.deregister);
    expect(r.terminate.body.error.message).toContain('runner:terminate');
  });

  it.each(['Admin', 'Owner'] as const)('%s can do everything, terminate included', async (role) => {
    const r = await exercise(t.role(role));
    for (const res of [r.list, r.get, r.events, r.prerequisites, r.exec, r.stop, r.start, r.canary, r.terminate, r.deregister]) expect(res.status).toBe(200);
    for (const res of [r.create, r.register]) expect(res.status).toBe(201);
    const actor = (await t.role(role).get(`/${r.terminate.body.runner_id}/events`)).body.events[0].actor;
    expect(actor).toBe(t.userId(role));
  });

  it.each(['Operator', 'Manager'] as const)('%s creates local runners with the locked profile only (host programs need Admin level)', async (role) => {
    const api = t.role(role);
    for (const tool_profile of ['web_automation', 'full_vm_tools']) {
      const res = await api.post('/', { provider_type: 'local', tool_profile, ttl_seconds: 600 });
      denied(res);
      expect(res.body.error.message).toContain('runner:terminate');
    }
    expect((await t.repos.runners.list(t.orgId)).items.filter((r) => r.provider_type === 'local' && r.tool_profile !== 'locked' && r.created_by === t.userId(role))).toEqual([]);
    expect((await api.post('/', { provider_type: 'local', tool_profile: 'locked', ttl_seconds: 600 })).status).toBe(201);
    expect((await api.post('/', { provider_type: 'fake', tool_profile: 'full_vm_tools', ttl_seconds: 600 })).status).toBe(201);
    const explicit = await t.key(['runner:create', 'runner:read']);
    denied(await explicit.post('/', { provider_type: 'local', tool_profile: 'full_vm_tools', ttl_seconds: 600 }));
  });

  it.each(['Admin', 'Owner'] as const)('%s creates local runners with any profile', async (role) => {
    for (const tool_profile of ['locked', 'web_automation', 'full_vm_tools']) {
      const res = await t.role(role).post('/', { provider_type: 'local', tool_profile, ttl_seconds: 600 });
      expect([tool_profile, res.status]).toEqual([tool_profile, 201]);
    }
    expect((await t.admin.post('/', { provider_type: 'local', tool_profile: 'full_vm_tools', ttl_seconds: 600 })).status).toBe(201);
  });

  it('maps gateway key scopes: admin:read reads, admin:write does everything, others nothing', async () => {
    const reader = await exercise(await t.key(['admin:read']));
    expect(reader.list.status).toBe(200);
    for (const res of [reader.create, reader.exec, reader.terminate]) denied(res);
    const writer = await exercise(await t.key(['admin:write']));
    expect(writer.terminate.status).toBe(200);
    expect(writer.create.status).toBe(201);
    const proxyOnly = await exercise(await t.key(['gateway:write', 'gateway:read']));
    for (const res of [proxyOnly.list, proxyOnly.get, proxyOnly.create]) denied(res);
    const explicit = await exercise(await t.key(['runner:read', 'runner:exec']));
    expect(explicit.get.status).toBe(200);
    expect(explicit.exec.status).toBe(200);
    denied(explicit.create);
  });

  it('refuses a runner token on the control plane (it only calls the proxy)', async () => {
    const runner = await t.admin.createRunner();
    const session = await t.admin.startSession(runner.runner_id);
    const asRunner = new RunnerApi(t.base, { 'X-SVC-API-Key': session.runner_token });
    denied(await asRunner.get(`/${runner.runner_id}`));
  });

  it('answers 401 without credentials and with a bad key, before any permission check', async () => {
    const anonymous = new RunnerApi(t.base, {});
    const res = await anonymous.get('/');
    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({ code: 'invalid_api_key', gateway_error_code: 'GW_AUTH_001' });
    expect((await new RunnerApi(t.base, { 'X-SVC-API-Key': 'svc_sk_nope' }).post('/canary')).status).toBe(401);
    expect((await anonymous.get('/health')).status).toBe(200);
  });
});
