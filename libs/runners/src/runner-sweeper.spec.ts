import { asOrgId, createRepositories, OrgId, Repositories, silentLogger, storeTargets, StoreUnderTest } from '@svc/domain';
import { RecordingPublisher } from '@svc/events';
import { FakeRunnerProvider } from './providers/fake.provider';
import { RunnerProviderRegistry } from './providers/provider-registry';
import { RunnerFailures } from './runner-failures';
import { RunnerRecords } from './runner-records';
import { RunnerClock, RunnerSettings } from './runner-settings';
import { RunnerSweeper, STUCK_PROVISIONING_MS } from './runner-sweeper';
import { RunnerStreamHub } from './stream/runner-stream.hub';
import { ExpireSessionUseCase } from './usecases/expire-session.usecase';

/** The sweeper against a real store, driven by a test clock (RUNNER_CLOCK): TTLs hold without waiting a minute. */
describe.each(storeTargets(process.env.MONGODB_URI))('RunnerSweeper ($name)', (target) => {
  let ctx: StoreUnderTest;
  let repos: Repositories;
  let orgId: OrgId;
  let now: Date;
  let sweeper: RunnerSweeper;
  let publisher: RecordingPublisher;
  const clock: RunnerClock = { now: () => now };
  const settings: RunnerSettings = { enabled: true, localEnabled: false, dataDir: '/tmp/svc-data', workDir: '/tmp', outputCapBytes: 1024, sweepIntervalMs: 60_000, heartbeatMs: 15_000 };

  beforeEach(async () => {
    ctx = await target.open();
    await ctx.store.ready();
    repos = createRepositories(ctx.store);
    orgId = asOrgId('org_sweep');
    now = new Date('2030-01-01T00:00:00Z');
    publisher = new RecordingPublisher();
    const records = new RunnerRecords(repos, new RunnerStreamHub(), clock);
    const failures = new RunnerFailures(records, new RunnerProviderRegistry([new FakeRunnerProvider()]), publisher, silentLogger());
    sweeper = new RunnerSweeper(records, new ExpireSessionUseCase(records, failures), failures, settings, silentLogger());
  });
  afterEach(async () => {
    await sweeper.onModuleDestroy();
    await ctx.cleanup();
  });

  async function runningSession(ttlSeconds: number) {
    const runner = await repos.runners.create(orgId, { provider_type: 'fake', tool_profile: 'locked', ttl_seconds: ttlSeconds }, now);
    const session = await repos.runnerSessions.create(orgId, { runner_id: runner._id, ttl_seconds: ttlSeconds, budget_usd: 5 }, now);
    await repos.runnerSessions.transition(orgId, session._id, ['starting'], { state: 'active' }, now);
    await repos.runners.updateVersioned(orgId, runner._id, 1, { state: 'running', active_session_id: session._id }, undefined, now);
    return { runnerId: runner._id, sessionId: session._id };
  }

  it('expires sessions once their TTL has elapsed on the clock, stopping their runners, once', async () => {
    const short = await runningSession(60);
    const long = await runningSession(3600);
    now = new Date(now.getTime() + 59_000);
    expect(await sweeper.sweep()).toEqual({ expired: 0, failed: 0 });
    now = new Date(now.getTime() + 1_000);
    expect(await sweeper.sweep()).toEqual({ expired: 1, failed: 0 });
    expect(await repos.runners.findById(orgId, short.runnerId)).toMatchObject({ state: 'stopped', active_session_id: null, version: 3 });
    expect(await repos.runnerSessions.findById(orgId, short.sessionId)).toMatchObject({ state: 'expired', ended_at: now });
    expect(await repos.runners.findById(orgId, long.runnerId)).toMatchObject({ state: 'running' });
    const { events } = await repos.runnerEvents.listByRunner(orgId, short.runnerId);
    expect(events.map((e) => [e.event_type, e.actor, e.detail.runner_state])).toEqual([['session_expired', 'system', 'stopped']]);
    expect(await sweeper.sweep()).toEqual({ expired: 0, failed: 0 });
  });

  it("bumps the version once for a session that expires without holding its runner (the event's own version)", async () => {
    const runner = await repos.runners.create(orgId, { provider_type: 'fake', tool_profile: 'locked', ttl_seconds: 60 }, now);
    await repos.runners.updateVersioned(orgId, runner._id, 1, { state: 'ready' }, undefined, now);
    const session = await repos.runnerSessions.create(orgId, { runner_id: runner._id, ttl_seconds: 60, budget_usd: 5 }, now);
    now = new Date(now.getTime() + 61_000);
    expect(await sweeper.sweep()).toEqual({ expired: 1, failed: 0 });
    expect(await repos.runners.findById(orgId, runner._id)).toMatchObject({ state: 'ready', version: 3 });
    expect(await repos.runnerSessions.findById(orgId, session._id)).toMatchObject({ state: 'expired' });
    const { events } = await repos.runnerEvents.listByRunner(orgId, runner._id);
    expect(events.map((e) => [e.event_type, e.detail.version, e.detail.runner_state])).toEqual([['session_expired', 3, 'ready']]);
  });

  it('sweeps at start-up (onModuleInit) before the interval takes over', async () => {
    const due = await runningSession(60);
    now = new Date(now.getTime() + 120_000);
    await sweeper.onModuleInit();
    expect((await repos.runnerSessions.findById(orgId, due.sessionId))?.state).toBe('expired');
  });

  it('fails runners left in provisioning by a crash and publishes agent.failed', async () => {
    const stuck = await repos.runners.create(orgId, { provider_type: 'fake', tool_profile: 'locked', ttl_seconds: 60, name: 'stuck' }, now);
    now = new Date(now.getTime() + STUCK_PROVISIONING_MS + 1);
    expect(await sweeper.sweep()).toEqual({ expired: 0, failed: 1 });
    expect(await repos.runners.findById(orgId, stuck._id)).toMatchObject({ state: 'failed', error: expect.stringContaining('provisioning did not complete') });
    expect(publisher.last('agent.failed')?.data).toMatchObject({ runner_id: stuck._id, runner_name: 'stuck', session_id: null, timestamp: now.toISOString() });
  });
});
