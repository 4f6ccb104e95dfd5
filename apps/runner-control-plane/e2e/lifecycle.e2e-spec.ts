import { verifyRunnerProof } from '@svc/auth';
import type { OrgId } from '@svc/domain';
import { bootRunners, Json, LOCAL_ON, RunnerTestContext, seedKey } from './runner-helpers';

describe('runner lifecycle through HTTP', () => {
  let t: RunnerTestContext;
  beforeAll(async () => {
    t = await bootRunners(LOCAL_ON);
  });
  afterAll(() => t.stop());

  it.each(['fake', 'local'])('runs create → start → exec → stop → terminate on the %s provider', async (provider) => {
    const created = await t.admin.post('/', { provider_type: provider, tool_profile: 'locked', ttl_seconds: 600, runtime_version: '1.0', image_ref: null });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      runner_id: expect.stringMatching(/^run_/),
      org_id: t.orgId,
      state: 'ready',
      provider_type: provider,
      tool_profile: 'locked',
      ttl_seconds: 600,
      version: 3,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      session: null,
    });
    const runnerId = created.body.runner_id as string;

    const started = await t.admin.post(`/${runnerId}/start`);
    expect(started.status).toBe(200);
    expect(started.body).toEqual({
      session_id: expect.stringMatching(/^ses_/),
      runner_id: runnerId,
      state: 'active',
      started_at: expect.any(String),
      expires_at: expect.any(String),
      runner_token: expect.stringMatching(/^svc_rt_[A-Za-z0-9]{40}$/),
      runner_proof: expect.stringMatching(/^rp1\./),
    });
    const sessionId = started.body.session_id as string;
    expect(Date.parse(started.body.expires_at) - Date.parse(started.body.started_at)).toBe(600_000);
    expect(verifyRunnerProof(t.service.runtime.secrets.masterKeys, started.body.runner_proof, { runnerId, sessionId })).toEqual({ runnerId, sessionId });
    const stored = await t.repos.runnerSessions.findById(t.orgId, sessionId);
    expect(JSON.stringify(stored)).not.toContain(started.body.runner_token);
    expect(stored?.budget_usd).toBe(5);

    const running = await t.admin.get(`/${runnerId}`);
    expect(running.body).toMatchObject({ state: 'running', version: 5, session: { session_id: sessionId, state: 'active', runner_id: runnerId } });

    const exec = await t.admin.exec(runnerId, sessionId, ['echo', 'hello', 'runner']);
    expect(exec.status).toBe(200);
    // fake echoes the whole argv; local runs the real echo.
    const stdout = provider === 'fake' ? 'echo hello runner\n' : 'hello runner\n';
    expect(exec.body).toEqual({ command_id: expect.stringMatching(/^cmd_/), session_id: sessionId, exit_code: 0, stdout, stderr: '' });

    const stopped = await t.admin.post(`/${runnerId}/stop`, undefined, { session_id: sessionId });
    expect(stopped.status).toBe(200);
    expect(stopped.body).toMatchObject({ session_id: sessionId, runner_id: runnerId, state: 'terminated' });
    const ready = await t.admin.get(`/${runnerId}`);
    expect(ready.body).toMatchObject({ state: 'ready', session: null });

    const again = await t.admin.startSession(runnerId, { ttl_override: 120 });
    expect(Date.parse(again.expires_at) - Date.parse(again.started_at)).toBe(120_000);

    const terminated = await t.admin.post(`/${runnerId}/terminate`);
    expect(terminated.status).toBe(200);
    expect(terminated.body).toMatchObject({ runner_id: runnerId, state: 'terminated', session: null });
    expect((await t.repos.runnerSessions.findById(t.orgId, again.session_id))?.state).toBe('terminated');

    expect(await t.admin.eventTypes(runnerId)).toEqual([
      'runner_created',
      'runner_provisioning',
      'runner_ready',
      'session_starting',
      'session_active',
      'command_executed',
      'session_stopping',
      'session_terminated',
      'runner_ready',
      'session_starting',
      'session_active',
      'session_terminated',
      'runner_terminated',
    ]);
    const events = (await t.admin.get(`/${runnerId}/events`, { limit: '2' })).body;
    expect(events).toMatchObject({ runner_id: runnerId, total: 13 });
    expect(events.events).toHaveLength(2);
    expect(events.events[0]).toEqual({
      event_id: expect.stringMatching(/^rev_/),
      event_type: 'runner_terminated',
      runner_id: runnerId,
      session_id: null,
      actor: expect.stringMatching(/^key_/),
      detail: expect.objectContaining({ from: 'running', runner_state: 'terminated', version: terminated.body.version }),
      timestamp: expect.any(String),
    });
  });

  it('bumps the version once per transition event, visible in the audit trail', async () => {
    const runner = await t.admin.createRunner();
    const session = await t.admin.startSession(runner.runner_id);
    await t.admin.post(`/${runner.runner_id}/stop`, undefined, { session_id: session.session_id });
    const { events } = (await t.admin.get(`/${runner.runner_id}/events`)).body as { events: Json[] };
    const versions = events.map((e) => e.detail.version as number).reverse();
    expect(versions).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect((await t.admin.get(`/${runner.runner_id}`)).body.version).toBe(8);
  });

  it('numbers every transition event 1, 2, 3, ... across a whole lifecycle; commands and refusals keep the version', async () => {
    const runner = await t.admin.createRunner({ tool_profile: 'full_vm_tools' });
    const first = await t.admin.startSession(runner.runner_id);
    expect((await t.admin.exec(runner.runner_id, first.session_id, ['echo', 'one'])).status).toBe(200);
    expect((await t.admin.exec(runner.runner_id, first.session_id, ['sudo', 'id'])).status).toBe(403);
    await t.admin.post(`/${runner.runner_id}/stop`, undefined, { session_id: first.session_id });
    const second = await t.admin.startSession(runner.runner_id);
    const terminated = await t.admin.post(`/${runner.runner_id}/terminate`);
    expect(await t.admin.transitionVersions(runner.runner_id)).toEqual([
      ['runner_created', 1],
      ['runner_provisioning', 2],
      ['runner_ready', 3],
      ['session_starting', 4],
      ['session_active', 5],
      ['session_stopping', 6],
      ['session_terminated', 7],
      ['runner_ready', 8],
      ['session_starting', 9],
      ['session_active', 10],
      ['session_terminated', 11],
      ['runner_terminated', 12],
    ]);
    expect(terminated.body.version).toBe(12);
    expect((await t.repos.runnerSessions.findById(t.orgId, second.session_id))?.state).toBe('terminated');
    const events = (await t.admin.get(`/${runner.runner_id}/events`, { limit: '1000' })).body.events as Json[];
    const commands = events.filter((e) => ['command_executed', 'policy_denied'].includes(e.event_type));
    expect(commands.map((e) => [e.event_type, e.detail.version])).toEqual([
      ['policy_denied', 5],
      ['command_executed', 5],
    ]);
  });

  it('gives the failure path one version per event too: session_failed, then runner_failed', async () => {
    const runner = await t.admin.createRunner({ tool_profile: 'full_vm_tools' });
    const session = await t.admin.startSession(runner.runner_id);
    expect((await t.admin.exec(runner.runner_id, session.session_id, ['fake:provider-error'])).status).toBe(502);
    expect((await t.admin.transitionVersions(runner.runner_id)).slice(-3)).toEqual([
      ['session_active', 5],
      ['session_failed', 6],
      ['runner_failed', 7],
    ]);
    const terminated = await t.admin.post(`/${runner.runner_id}/terminate`);
    expect(terminated.body.version).toBe(8);
    expect((await t.admin.transitionVersions(runner.runner_id)).at(-1)).toEqual(['runner_terminated', 8]);
  });

  it('lists runners with state filter and paging, newest first', async () => {
    const a = await t.admin.createRunner();
    const b = await t.admin.createRunner();
    await t.admin.post(`/${a.runner_id}/terminate`);
    const all = await t.admin.get('/', { limit: '1000' });
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ limit: 1000, offset: 0 });
    expect(all.body.total).toBe(all.body.runners.length);
    expect(all.body.runners[0]).not.toHaveProperty('session');
    const terminated = await t.admin.get('/', { state: 'terminated' });
    expect((terminated.body.runners as Json[]).map((r) => r.runner_id)).toContain(a.runner_id);
    expect((terminated.body.runners as Json[]).every((r) => r.state === 'terminated')).toBe(true);
    const page = await t.admin.get('', { state: 'ready', limit: '1', offset: '0' });
    expect(page.body).toMatchObject({ limit: 1, offset: 0 });
    expect(page.body.runners.map((r: Json) => r.runner_id)).toEqual([b.runner_id]);
    expect((await t.admin.get('/')).body.limit).toBe(100);
  });

  it.each([
    [{ provider_type: 'fake', tool_profile: 'locked', ttl_seconds: 59 }, 'ttl_seconds'],
    [{ provider_type: 'fake', tool_profile: 'locked', ttl_seconds: 86_401 }, 'ttl_seconds'],
    [{ provider_type: 'fake', tool_profile: 'locked', ttl_seconds: 60.5 }, 'ttl_seconds'],
    [{ provider_type: 'fake', tool_profile: 'root', ttl_seconds: 600 }, 'tool_profile'],
    [{ provider_type: 'docker', tool_profile: 'locked', ttl_seconds: 600 }, 'provider_type'],
    [{ tool_profile: 'locked', ttl_seconds: 600 }, 'provider_type'],
    [{ provider_type: 'fake', tool_profile: 'locked', ttl_seconds: 600, surprise: true }, 'surprise'],
    [{ provider_type: 'fake', tool_profile: 'locked', ttl_seconds: 600, session_budget_usd: -1 }, 'session_budget_usd'],
  ])('refuses an invalid create body %j (400 naming %s)', async (body, param) => {
    const res = await t.admin.post('/', body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_request', param });
  });

  it('refuses null for any field of create, start, exec and register except image_ref, and a required field left out (400 naming the field in one message), and creates nothing', async () => {
    const runner = await t.admin.createRunner();
    const session = await t.admin.startSession(runner.runner_id);
    const total = async () => (await t.admin.get('/', { limit: '1' })).body.total as number;
    const before = await total();
    const create = { provider_type: 'fake', tool_profile: 'locked', ttl_seconds: 600 };
    const exec = { session_id: session.session_id };
    // A required field says only that it must not be null; an optional one, to omit it for the default.
    const required = (field: string) => `${field} must not be null`;
    const optional = (field: string) => `${field} must not be null (omit it for the default)`;
    const cases: [string, Json, string, string, Record<string, string>?][] = [
      ...['provider_type', 'tool_profile', 'ttl_seconds'].map((field): [string, Json, string, string] => ['/', { ...create, [field]: null }, field, required(field)]),
      ...['runtime_version', 'name', 'session_budget_usd'].map((field): [string, Json, string, string] => ['/', { ...create, [field]: null }, field, optional(field)]),
      [`/${runner.runner_id}/exec`, { argv: null }, 'argv', required('argv'), exec],
      [`/${runner.runner_id}/exec`, { argv: ['echo'], timeout_seconds: null }, 'timeout_seconds', optional('timeout_seconds'), exec],
      ['/byovm/register', { machine_id: null }, 'machine_id', required('machine_id')],
      ...['name', 'tool_profile', 'ttl_seconds', 'runtime_version'].map((field): [string, Json, string, string] => ['/byovm/register', { machine_id: 'null-box', [field]: null }, field, optional(field)]),
      // Left out, a required field is required, and nothing else is said of it.
      ['/', {}, 'provider_type', 'provider_type is required; tool_profile is required; ttl_seconds is required'],
      ['/', { ...create, ttl_seconds: undefined, name: '' }, 'ttl_seconds', 'ttl_seconds is required; name must be longer than or equal to 1 characters'],
      [`/${runner.runner_id}/exec`, { timeout_seconds: 5 }, 'argv', 'argv is required', exec],
      [`/${runner.runner_id}/exec`, { argv: ['echo'] }, 'session_id', 'session_id is required'],
      ['/byovm/register', { name: 'box' }, 'machine_id', 'machine_id is required'],
    ];
    for (const [path, body, param, message, query] of cases) {
      const res = await t.admin.post(path, body, query);
      expect({ path, body, status: res.status, error: res.body.error }).toEqual({
        path,
        body,
        status: 400,
        error: expect.objectContaining({ type: 'invalid_request_error', code: 'invalid_request', param, message }),
      });
    }
    expect(await total()).toBe(before);
    // start takes an optional ttl_override: null is refused on a runner that could start.
    const idle = await t.admin.createRunner();
    const start = await t.admin.post(`/${idle.runner_id}/start`, { ttl_override: null });
    expect({ status: start.status, param: start.body.error?.param, message: start.body.error?.message }).toEqual({ status: 400, param: 'ttl_override', message: optional('ttl_override') });
    expect((await t.admin.get(`/${idle.runner_id}`)).body.state).toBe('ready');
    // image_ref is "string or null" (SPEC.md): null is the default image.
    expect((await t.admin.post('/', { ...create, image_ref: null })).status).toBe(201);
  });

  it('accepts the boundary TTLs and a per-runner session budget', async () => {
    await t.admin.createRunner({ ttl_seconds: 60 });
    const runner = await t.admin.createRunner({ ttl_seconds: 86_400, session_budget_usd: 12.5, name: 'nightly' });
    const session = await t.admin.startSession(runner.runner_id);
    expect((await t.repos.runnerSessions.findById(t.orgId, session.session_id))?.budget_usd).toBe(12.5);
    const created = (await t.admin.get(`/${runner.runner_id}/events`)).body.events.find((e: Json) => e.event_type === 'runner_created');
    expect(created.detail).toMatchObject({ session_budget_usd: 12.5, name: 'nightly' });
  });

  it('refuses the vendor providers as not configured (400 provider_not_configured)', async () => {
    for (const provider_type of ['e2b', 'daytona']) {
      const res = await t.admin.post('/', { provider_type, tool_profile: 'locked', ttl_seconds: 600 });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'provider_not_configured', param: 'provider_type' });
      expect(res.body.error.message).toContain('fake, local');
    }
  });

  it.each([
    [{ limit: '0' }, 'limit'],
    [{ limit: '1001' }, 'limit'],
    [{ limit: 'ten' }, 'limit'],
    [{ offset: '-1' }, 'offset'],
    [{ offset: '9007199254740993' }, 'offset'],
    [{ state: 'sleeping' }, 'state'],
  ])('refuses list query %j', async (query, param) => {
    const res = await t.admin.get('/', query);
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe(param);
  });

  it('validates exec, start and events input', async () => {
    const runner = await t.admin.createRunner();
    const session = await t.admin.startSession(runner.runner_id);
    const exec = (body: unknown, query: Record<string, string> = { session_id: session.session_id }) => t.admin.post(`/${runner.runner_id}/exec`, body, query);
    expect((await exec({ argv: [] })).body.error.param).toBe('argv');
    expect((await exec({ argv: 'echo hi' })).body.error.param).toBe('argv');
    expect((await exec({ argv: ['echo', 3] })).body.error.param).toBe('argv');
    expect((await exec({ argv: [''] })).body.error.param).toBe('argv');
    expect((await exec({ argv: ['echo'], timeout_seconds: 0 })).body.error.param).toBe('timeout_seconds');
    expect((await exec({ argv: ['echo'], timeout_seconds: 3601 })).body.error.param).toBe('timeout_seconds');
    expect((await exec({ argv: ['echo'] }, {})).body.error.param).toBe('session_id');
    expect((await exec({ argv: ['echo'] }, { session_id: session.session_id })).status).toBe(200);
    expect((await t.admin.post(`/${runner.runner_id}/start`, { ttl_override: 30 })).body.error.param).toBe('ttl_override');
    expect((await t.admin.get(`/${runner.runner_id}/events`, { limit: '0' })).body.error.param).toBe('limit');
    const events = await t.admin.get(`/${runner.runner_id}/events`);
    expect(events.body.events.length).toBeLessThanOrEqual(50);
  });

  it.each([
    ['an unknown field', { foo: 1 }, 'foo'],
    ['an array', [1], 'body'],
    ['a number', 5, 'body'],
  ])('refuses %s (%j) in the body of stop, terminate and canary, which take none: 400 naming %s, nothing done', async (_what, body, param) => {
    const runner = await t.admin.createRunner();
    const session = await t.admin.startSession(runner.runner_id);
    const runners = async () => (await t.admin.get('/', { limit: '1' })).body.total as number;
    const before = await runners();
    for (const res of [
      await t.admin.post(`/${runner.runner_id}/stop`, body, { session_id: session.session_id }),
      await t.admin.post(`/${runner.runner_id}/terminate`, body),
      await t.admin.post('/canary', body),
    ]) {
      expect({ status: res.status, error: res.body.error }).toEqual({ status: 400, error: expect.objectContaining({ type: 'invalid_request_error', code: 'invalid_request', param }) });
    }
    expect(await runners()).toBe(before);
    expect((await t.admin.get(`/${runner.runner_id}`)).body).toMatchObject({ state: 'running', session: { session_id: session.session_id, state: 'active' } });
    // An empty object is no body.
    expect((await t.admin.post(`/${runner.runner_id}/stop`, {}, { session_id: session.session_id })).status).toBe(200);
    expect((await t.admin.post(`/${runner.runner_id}/terminate`, {})).status).toBe(200);
  });

  it('answers 404 runner_not_found and session_not_found', async () => {
    const missing = await t.admin.get('/run_doesnotexist');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ type: 'not_found_error', code: 'runner_not_found' });
    for (const res of [
      await t.admin.post('/run_nope/start'),
      await t.admin.post('/run_nope/terminate'),
      await t.admin.get('/run_nope/events'),
      await t.admin.post('/run_nope/exec', { argv: ['echo'] }, { session_id: 'ses_x' }),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('runner_not_found');
    }
    const a = await t.admin.createRunner();
    const b = await t.admin.createRunner();
    const sessionOfB = await t.admin.startSession(b.runner_id);
    for (const res of [
      await t.admin.post(`/${a.runner_id}/stop`, undefined, { session_id: 'ses_unknown' }),
      await t.admin.post(`/${a.runner_id}/exec`, { argv: ['echo'] }, { session_id: sessionOfB.session_id }),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('session_not_found');
    }
  });

  it('keeps organizations apart', async () => {
    const runner = await t.admin.createRunner();
    const otherOrg = await t.repos.organizations.create({ name: 'Other', plan: 'growth' });
    const plaintext = await seedKey(t.repos, otherOrg._id as OrgId, ['admin:write']);
    const res = await fetch(`${t.base}/gateway/admin/runners/${runner.runner_id}`, { headers: { 'X-SVC-API-Key': plaintext } });
    expect(res.status).toBe(404);
  });
});
