import { asOrgId } from '@svc/domain';
import { AgentFailedData, EventJob, GatewayEvent, QUEUES } from '@svc/events';
import { FAKE_START_ERROR_IMAGE, FAKE_STOP_ERROR_IMAGE, FAKE_TERMINATE_ERROR_IMAGE } from '@svc/runners';
import { bootRunners, eventually, Json, LOCAL_ON, RunnerApi, RunnerTestContext, seedKey } from './runner-helpers';

describe('runner operations: health, prerequisites, canary, self-hosted runners, provider failures', () => {
  let t: RunnerTestContext;
  const published: GatewayEvent[] = [];
  beforeAll(async () => {
    t = await bootRunners(LOCAL_ON);
    // What the webhook dispatcher would consume: the real `events` queue of this process.
    t.service.runtime.events.queue<EventJob>(QUEUES.events).process(async (job) => {
      published.push(job.data.event);
    });
  });
  afterAll(() => t.stop());

  const agentFailed = (runnerId: string) =>
    eventually(async () => published.find((e) => e.type === 'agent.failed' && (e.data as AgentFailedData).runner_id === runnerId));

  it('GET /health answers without credentials: {status, provider, subsystems{feature_flag, provider_available}}', async () => {
    const res = await new RunnerApi(t.base, {}).get('/health');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ok', provider: 'local', subsystems: { feature_flag: true, provider_available: true } });
    expect(res.body.providers).toMatchObject({
      fake: { configured: true, available: true },
      local: { configured: true, available: true },
      e2b: { configured: false, available: false },
      daytona: { configured: false, available: false },
    });
  });

  it('GET /prerequisites lists what is configured and what is missing', async () => {
    const res = await t.admin.get('/prerequisites');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ready: true, missing: [] });
    const byName = Object.fromEntries((res.body.checks as Json[]).map((c) => [c.name, c]));
    expect(byName['feature_flag']).toMatchObject({ status: 'ok', required: true });
    expect(byName['provider:local']).toMatchObject({ status: 'ok', detail: expect.stringContaining(t.workDir) });
    expect(byName['provider:e2b']).toMatchObject({ status: 'not_configured', required: false });
    expect(byName['document_store']).toMatchObject({ status: 'ok' });
  });

  it('POST /canary runs create, start, exec, stop on the fake provider, times each step and cleans up', async () => {
    const res = await t.admin.post('/canary');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'passed', provider: 'fake', runner_id: expect.stringMatching(/^run_/), session_id: expect.stringMatching(/^ses_/) });
    expect((res.body.steps as Json[]).map((s) => [s.step, s.status])).toEqual([
      ['create', 'passed'],
      ['start', 'passed'],
      ['exec', 'passed'],
      ['stop', 'passed'],
      ['cleanup', 'passed'],
    ]);
    for (const step of res.body.steps as Json[]) expect(step.duration_ms).toBeGreaterThanOrEqual(0);
    expect(res.body.steps[2].detail).toEqual({ exit_code: 0, stdout: 'echo svc-canary\n' });
    expect((await t.admin.get(`/${res.body.runner_id}`)).body.state).toBe('terminated');
    expect(await t.admin.eventTypes(res.body.runner_id)).toEqual([
      'runner_created',
      'runner_provisioning',
      'runner_ready',
      'session_starting',
      'session_active',
      'command_executed',
      'session_stopping',
      'session_terminated',
      'runner_ready',
      'runner_terminated',
    ]);
  });

  it('reports a failed canary with 503: the failing step, the rest skipped, nothing left behind', async () => {
    // A free-plan organization has no managed runners (plan entitlement), so the canary's create fails.
    const freeOrg = asOrgId((await t.repos.organizations.create({ name: 'Free org', plan: 'free' }))._id);
    const api = new RunnerApi(t.base, { 'X-SVC-API-Key': await seedKey(t.repos, freeOrg, ['admin:write']) });
    const res = await api.post('/canary');
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ status: 'failed', provider: 'fake', runner_id: null, session_id: null });
    expect((res.body.steps as Json[]).map((s) => [s.step, s.status])).toEqual([
      ['create', 'failed'],
      ['start', 'skipped'],
      ['exec', 'skipped'],
      ['stop', 'skipped'],
      ['cleanup', 'skipped'],
    ]);
    expect(res.body.steps[0].detail).toMatchObject({ code: 'feature_not_on_plan', http_status: 403 });
    expect(res.body.duration_ms).toBeGreaterThanOrEqual(0);
    expect((await t.repos.runners.list(freeOrg)).total).toBe(0);
  });

  it('registers a self-hosted machine once (409 runner_already_registered), deregisters it, and lets it register again', async () => {
    const registered = await t.admin.post('/byovm/register', { machine_id: 'build-box-01', name: 'build box' });
    expect(registered.status).toBe(201);
    expect(registered.body).toMatchObject({ state: 'ready', provider_type: 'byovm', tool_profile: 'locked', ttl_seconds: 3600, version: 2 });
    const duplicate = await t.admin.post('/byovm/register', { machine_id: 'build-box-01' });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.error).toEqual({
      code: 'runner_already_registered',
      message: expect.stringContaining('build-box-01'),
      request_id: expect.any(String),
      existing_runner_id: registered.body.runner_id,
    });
    expect((await t.admin.post('/byovm/register', { machine_id: 'bad id!' })).body.error.param).toBe('machine_id');

    const started = await t.admin.post(`/${registered.body.runner_id}/start`);
    expect(started.status).toBe(400);
    expect(started.body.error.code).toBe('provider_not_configured');

    const removed = await t.admin.delete(`/byovm/${registered.body.runner_id}`);
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ runner_id: registered.body.runner_id, state: 'terminated' });
    const last = (await t.admin.get(`/${registered.body.runner_id}/events`, { limit: '1' })).body.events[0];
    expect(last).toMatchObject({ event_type: 'runner_terminated', detail: { deregistered: true, machine_id: 'build-box-01' } });
    expect((await t.admin.delete(`/byovm/${registered.body.runner_id}`)).status).toBe(409);

    const again = await t.admin.post('/byovm/register', { machine_id: 'build-box-01' });
    expect(again.status).toBe(201);
    expect(again.body.runner_id).not.toBe(registered.body.runner_id);

    const managed = await t.admin.createRunner();
    expect((await t.admin.delete(`/byovm/${managed.runner_id}`)).body.error.code).toBe('runner_not_found');
  });

  it('fails the runner on a provisioning error: 502 provider_error, runner_failed, agent.failed', async () => {
    const res = await t.admin.post('/', { provider_type: 'fake', tool_profile: 'locked', ttl_seconds: 600, image_ref: 'fake://provision-error', name: 'doomed' });
    expect(res.status).toBe(502);
    expect(res.body.error).toMatchObject({ type: 'api_error', code: 'provider_error' });
    const runnerId = /Runner (run_\w+)/.exec(res.body.error.message)?.[1] as string;
    expect((await t.admin.get(`/${runnerId}`)).body.state).toBe('failed');
    expect(await t.admin.eventTypes(runnerId)).toEqual(['runner_created', 'runner_provisioning', 'runner_failed']);
    const event = await agentFailed(runnerId);
    expect(event).toMatchObject({ type: 'agent.failed', orgid: t.orgId, source: '/svc/runner-control-plane' });
    expect(event.data).toEqual({ runner_id: runnerId, runner_name: 'doomed', session_id: null, error: expect.stringContaining('provisioned'), timestamp: expect.any(String) });
  });

  it('fails the runner and its session on a sandbox error during exec; agent.failed carries the session', async () => {
    const runner = await t.admin.createRunner({ tool_profile: 'full_vm_tools' });
    const session = await t.admin.startSession(runner.runner_id);
    const res = await t.admin.exec(runner.runner_id, session.session_id, ['fake:provider-error']);
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe('provider_error');
    expect((await t.admin.get(`/${runner.runner_id}`)).body).toMatchObject({ state: 'failed', session: null });
    expect((await t.admin.eventTypes(runner.runner_id)).slice(-3)).toEqual(['command_failed', 'session_failed', 'runner_failed']);
    const event = await agentFailed(runner.runner_id);
    expect(event.data).toMatchObject({ runner_id: runner.runner_id, runner_name: runner.runner_id, session_id: session.session_id });
  });

  it('fails the runner and its session when the provider cannot start a session: 502 provider_error', async () => {
    const runner = await t.admin.createRunner({ image_ref: FAKE_START_ERROR_IMAGE });
    const res = await t.admin.post(`/${runner.runner_id}/start`);
    expect(res.status).toBe(502);
    expect(res.body.error).toMatchObject({ type: 'api_error', code: 'provider_error', message: expect.stringContaining('could not start the session') });
    expect((await t.admin.get(`/${runner.runner_id}`)).body).toMatchObject({ state: 'failed', session: null });
    expect(await t.admin.transitionVersions(runner.runner_id)).toEqual([
      ['runner_created', 1],
      ['runner_provisioning', 2],
      ['runner_ready', 3],
      ['session_starting', 4],
      ['session_failed', 5],
      ['runner_failed', 6],
    ]);
    const [session] = await t.repos.runnerSessions.listByRunner(t.orgId, runner.runner_id);
    expect(session).toMatchObject({ state: 'failed' });
    expect((await agentFailed(runner.runner_id)).data).toMatchObject({ session_id: session._id });
  });

  it('fails the runner and its session when the provider cannot stop a session: 502 provider_error', async () => {
    const runner = await t.admin.createRunner({ image_ref: FAKE_STOP_ERROR_IMAGE });
    const session = await t.admin.startSession(runner.runner_id);
    const res = await t.admin.post(`/${runner.runner_id}/stop`, undefined, { session_id: session.session_id });
    expect(res.status).toBe(502);
    expect(res.body.error).toMatchObject({ code: 'provider_error', message: expect.stringContaining('could not stop the session') });
    expect((await t.admin.get(`/${runner.runner_id}`)).body.state).toBe('failed');
    expect((await t.repos.runnerSessions.findById(t.orgId, session.session_id))?.state).toBe('failed');
    expect((await t.admin.transitionVersions(runner.runner_id)).slice(-3)).toEqual([
      ['session_stopping', 6],
      ['session_failed', 7],
      ['runner_failed', 8],
    ]);
    await agentFailed(runner.runner_id);
  });

  it('terminates a runner although its provider fails to release it, and records the failure', async () => {
    const runner = await t.admin.createRunner({ image_ref: FAKE_TERMINATE_ERROR_IMAGE });
    const res = await t.admin.post(`/${runner.runner_id}/terminate`);
    expect(res.status).toBe(200);
    expect(res.body.state).toBe('terminated');
    const last = (await t.admin.get(`/${runner.runner_id}/events`, { limit: '1' })).body.events[0];
    expect(last).toMatchObject({ event_type: 'runner_terminated', detail: { provider_error: expect.stringContaining('could not be released'), version: 4 } });
  });
});
