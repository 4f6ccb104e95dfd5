import { asOrgId, createRepositories, OrgId, Repositories, silentLogger, storeTargets, StoreUnderTest } from '@svc/domain';
import { GatewayError, InvalidationBus } from '@svc/platform';
import { GatewayKeyAuthenticator } from './gateway-key-authenticator';
import { createRunnerTokenResolver, generateRunnerToken, hashRunnerToken, runnerSessionOf } from './runner-token-resolver';

describe.each(storeTargets(process.env.MONGODB_URI))('runner token resolver ($name)', (target) => {
  let ctx: StoreUnderTest;
  let repos: Repositories;
  let orgId: OrgId;
  const t0 = new Date('2030-01-01T00:00:00Z');
  const at = (s: number) => new Date(t0.getTime() + s * 1000);

  beforeEach(async () => {
    ctx = await target.open();
    await ctx.store.ready();
    repos = createRepositories(ctx.store);
    orgId = asOrgId((await repos.organizations.create({ name: 'Acme', plan: 'growth' }))._id);
  });
  afterEach(() => ctx.cleanup());

  /** A running runner created by `createdBy` with an active session carrying a fresh token. */
  async function activeSession(createdBy: string | null = 'key_creator') {
    const runner = await repos.runners.create(orgId, { provider_type: 'fake', tool_profile: 'locked', ttl_seconds: 60, created_by: createdBy }, t0);
    const token = generateRunnerToken();
    const session = await repos.runnerSessions.create(orgId, { runner_id: runner._id, ttl_seconds: 60, budget_usd: 5, token_hash: hashRunnerToken(token) }, t0);
    await repos.runnerSessions.transition(orgId, session._id, ['starting'], { state: 'active' });
    await repos.runners.updateVersioned(orgId, runner._id, 1, { state: 'running', active_session_id: session._id });
    return { runner, session, token };
  }

  it('issues svc_rt_ tokens and resolves one to a runner principal of the session’s organization', async () => {
    const { runner, session, token } = await activeSession();
    expect(token).toMatch(/^svc_rt_[A-Za-z0-9]{40}$/);
    const principal = await createRunnerTokenResolver(repos)(hashRunnerToken(token), at(10));
    expect(principal).toMatchObject({
      kind: 'runner',
      orgId,
      organization: { _id: orgId, plan: 'growth' },
      scopes: ['gateway:write', 'gateway:read'],
      keyId: 'key_creator',
      userId: null,
      role: null,
      runner: { runnerId: runner._id, sessionId: session._id },
    });
    expect(runnerSessionOf(principal as NonNullable<typeof principal>)).toEqual({ runnerId: runner._id, sessionId: session._id });
    expect(runnerSessionOf({ ...(principal as NonNullable<typeof principal>), kind: 'api_key' })).toBeNull();
  });

  it('names no key when a dashboard user created the runner', async () => {
    const { token } = await activeSession('usr_1');
    expect(await createRunnerTokenResolver(repos)(hashRunnerToken(token), at(1))).toMatchObject({ keyId: null, userId: 'usr_1' });
  });

  it('resolves nothing for unknown tokens, expired sessions, or sessions no longer active', async () => {
    const resolve = createRunnerTokenResolver(repos);
    expect(await resolve(hashRunnerToken(generateRunnerToken()), at(1))).toBeNull();
    const live = await activeSession();
    expect(await resolve(hashRunnerToken(live.token), at(60))).toBeNull();
    const stopped = await activeSession();
    await repos.runnerSessions.transition(orgId, stopped.session._id, ['active'], { state: 'stopping' });
    expect(await resolve(hashRunnerToken(stopped.token), at(1))).toBeNull();
    const terminated = await activeSession();
    await repos.runners.updateVersioned(orgId, terminated.runner._id, 2, { state: 'terminated', active_session_id: null });
    expect(await resolve(hashRunnerToken(terminated.token), at(1))).toBeNull();
  });

  it('is what GatewayKeyAuthenticator uses for svc_rt_ credentials', async () => {
    const { runner, session, token } = await activeSession();
    const authenticator = new GatewayKeyAuthenticator(repos, new InvalidationBus(null, silentLogger()), silentLogger(), {
      resolveRunnerToken: createRunnerTokenResolver(repos),
    });
    const principal = await authenticator.authenticate({ value: token, location: 'x-svc-api-key', kind: 'runner' }, '127.0.0.1', at(1));
    expect(runnerSessionOf(principal)).toEqual({ runnerId: runner._id, sessionId: session._id });
    await repos.runnerSessions.transition(orgId, session._id, ['active'], { state: 'expired' });
    const refused = authenticator.authenticate({ value: token, location: 'x-svc-api-key', kind: 'runner' }, '127.0.0.1', at(2));
    await expect(refused).rejects.toBeInstanceOf(GatewayError);
    await expect(refused).rejects.toMatchObject({ status: 401, body: { code: 'invalid_api_key' } });
  });
});
