import { RunnerSweeper } from '@svc/runners';
import { ApiResponse, bootRunners, Json, RunnerTestContext } from './runner-helpers';

/** Every operation in a state the state machine does not allow answers 409 invalid_state. */
describe('runner state machine through HTTP', () => {
  let t: RunnerTestContext;
  beforeAll(async () => {
    t = await bootRunners();
  });
  afterAll(() => t.stop());

  /** SPEC.md "Admin conflicts (409)": `request_id` (= X-SVC-Request-ID) beside code and message, as every 409 under /gateway/admin. */
  const expectInvalidState = (res: ApiResponse) => {
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ type: 'conflict_error', code: 'invalid_state', message: expect.any(String), request_id: expect.stringMatching(/^gw_/) });
    expect(res.body.error.request_id).toBe(res.headers.get('x-svc-request-id'));
  };

  /** A runner in each state, reached the way a user would (stopped via TTL, failed via a provider error). */
  async function runnerIn(state: string): Promise<{ runnerId: string; sessionId: string | null }> {
    if (state === 'provisioning') {
      const runner = await t.repos.runners.create(t.orgId, { provider_type: 'fake', tool_profile: 'locked', ttl_seconds: 600 });
      return { runnerId: runner._id, sessionId: null };
    }
    // full_vm_tools lets the fake provider's failure hook (`fake:provider-error`) past the tool profile.
    const runner = await t.admin.createRunner({ tool_profile: 'full_vm_tools' });
    if (state === 'ready') return { runnerId: runner.runner_id, sessionId: null };
    const session = await t.admin.startSession(runner.runner_id);
    const ids = { runnerId: runner.runner_id as string, sessionId: session.session_id as string };
    if (state === 'running') return ids;
    if (state === 'stopped') {
      await t.repos.runnerSessions.updateById(t.orgId, ids.sessionId, { expires_at: new Date(Date.now() - 1000) });
      await t.app().get(RunnerSweeper).sweep();
    } else if (state === 'failed') {
      expect((await t.admin.exec(ids.runnerId, ids.sessionId, ['fake:provider-error'])).status).toBe(502);
    } else if (state === 'terminated') {
      expect((await t.admin.post(`/${ids.runnerId}/terminate`)).status).toBe(200);
    }
    expect((await t.admin.get(`/${ids.runnerId}`)).body.state).toBe(state);
    return ids;
  }

  it.each(['provisioning', 'running', 'stopped', 'failed', 'terminated'])('refuses start on a %s runner', async (state) => {
    const { runnerId } = await runnerIn(state);
    expectInvalidState(await t.admin.post(`/${runnerId}/start`));
  });

  it.each(['stopped', 'failed', 'terminated'])('refuses exec and stop on a %s runner with its ended session', async (state) => {
    const { runnerId, sessionId } = await runnerIn(state);
    expectInvalidState(await t.admin.exec(runnerId, sessionId as string, ['echo', 'x']));
    expectInvalidState(await t.admin.post(`/${runnerId}/stop`, undefined, { session_id: sessionId as string }));
  });

  it('refuses exec and stop on a ready runner with a stopped session, and a second stop', async () => {
    const runner = await t.admin.createRunner();
    const session = await t.admin.startSession(runner.runner_id);
    expect((await t.admin.post(`/${runner.runner_id}/stop`, undefined, { session_id: session.session_id })).status).toBe(200);
    expectInvalidState(await t.admin.post(`/${runner.runner_id}/stop`, undefined, { session_id: session.session_id }));
    expectInvalidState(await t.admin.exec(runner.runner_id, session.session_id, ['echo', 'late']));
  });

  it('refuses exec on an old session while a newer one is active', async () => {
    const runner = await t.admin.createRunner();
    const first = await t.admin.startSession(runner.runner_id);
    await t.admin.post(`/${runner.runner_id}/stop`, undefined, { session_id: first.session_id });
    const second = await t.admin.startSession(runner.runner_id);
    expectInvalidState(await t.admin.exec(runner.runner_id, first.session_id, ['echo']));
    expect((await t.admin.exec(runner.runner_id, second.session_id, ['echo'])).status).toBe(200);
  });

  it('checks the state before the provider: starting a terminated self-hosted runner is 409, not provider_not_configured', async () => {
    const registered = await t.admin.post('/byovm/register', { machine_id: `m-${Date.now()}` });
    expect((await t.admin.post(`/${registered.body.runner_id}/start`)).body.error.code).toBe('provider_not_configured');
    expect((await t.admin.delete(`/byovm/${registered.body.runner_id}`)).status).toBe(200);
    expectInvalidState(await t.admin.post(`/${registered.body.runner_id}/start`));
    // The same for a runner of a provider this deployment has turned off since (local is off here).
    const local = await t.repos.runners.create(t.orgId, { provider_type: 'local', tool_profile: 'locked', ttl_seconds: 600 });
    await t.repos.runners.updateVersioned(t.orgId, local._id, 1, { state: 'terminated' });
    expectInvalidState(await t.admin.post(`/${local._id}/start`));
  });

  it('refuses terminate on a terminated runner', async () => {
    const { runnerId } = await runnerIn('terminated');
    expectInvalidState(await t.admin.post(`/${runnerId}/terminate`));
  });

  it.each(['provisioning', 'ready', 'running', 'stopped', 'failed'])('terminates a %s runner and every live session', async (state) => {
    const { runnerId, sessionId } = await runnerIn(state);
    const res = await t.admin.post(`/${runnerId}/terminate`);
    expect(res.status).toBe(200);
    expect(res.body.state).toBe('terminated');
    if (sessionId) expect(['terminated', 'expired', 'failed']).toContain((await t.repos.runnerSessions.findById(t.orgId, sessionId))?.state);
    const events = (await t.admin.get(`/${runnerId}/events`)).body.events as Json[];
    expect(events[0]).toMatchObject({ event_type: 'runner_terminated', detail: { from: state } });
  });

  it('lets exactly one of several concurrent starts win; the others get 409', async () => {
    const runner = await t.admin.createRunner();
    const results = await Promise.all(Array.from({ length: 5 }, () => t.admin.post(`/${runner.runner_id}/start`)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409]);
    for (const loser of results.filter((r) => r.status === 409)) expectInvalidState(loser);
    const sessions = await t.repos.runnerSessions.listByRunner(t.orgId, runner.runner_id);
    expect(sessions).toHaveLength(1);
    expect((await t.admin.eventTypes(runner.runner_id)).filter((type) => type === 'session_starting')).toHaveLength(1);
  });

  it('lets exactly one of two concurrent terminates win', async () => {
    const { runnerId } = await runnerIn('running');
    const results = await Promise.all([t.admin.post(`/${runnerId}/terminate`), t.admin.post(`/${runnerId}/terminate`)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    expect((await t.admin.eventTypes(runnerId)).filter((type) => type === 'runner_terminated')).toHaveLength(1);
  });

  it('lets exactly one of two concurrent stops of a session win', async () => {
    const { runnerId, sessionId } = await runnerIn('running');
    const stop = () => t.admin.post(`/${runnerId}/stop`, undefined, { session_id: sessionId as string });
    const results = await Promise.all([stop(), stop()]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    expect((await t.admin.get(`/${runnerId}`)).body.state).toBe('ready');
  });

  it('refuses a stale optimistic update at the repository (version check)', async () => {
    const runner = await t.admin.createRunner();
    const stored = await t.repos.runners.findById(t.orgId, runner.runner_id);
    expect(stored?.version).toBe(3);
    await t.admin.startSession(runner.runner_id);
    expect(await t.repos.runners.updateVersioned(t.orgId, runner.runner_id, 3, { state: 'terminated' })).toBeNull();
  });
});
