import { AgentFailedData, EventJob, GatewayEvent, QUEUES } from '@svc/events';
import { bootRunners, eventually, Json, RunnerApi, RunnerTestContext } from './runner-helpers';

describe('runner operations: health, prerequisites, canary, self-hosted runners, provider failures', () => {
  let t: RunnerTestContext;
  const published: GatewayEvent[] = [];
  beforeAll(async () => {
    t = await bootRunners();
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
});
