import { asOrgId, hashApiKey, hashPassword } from '@svc/domain';
import { createEvent, EVENT_SOURCES, GatewayEvent } from '@svc/events';
import { MockProvider, startMockProvider } from '@svc/mock-provider';
import { createRedis, Redis, waitForRedis } from '@svc/platform';
import { bootService, Receiver, RedisProcess, startRedisProcess, TestService, waitUntil } from '@svc/testing';
import { SERVICE } from '../src/app.module';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are asserted field by field
type Json = Record<string, any>;
const PROVIDER_KEY = 'sk-mock-provider-key';
const PASSWORD = 'owner-password-123';
const SECRET = 'receiver-signing-secret-0123';

interface Tenant {
  orgId: string;
  email: string;
  bearer: Record<string, string>;
  key: string;
  keyId: string;
  path: string;
}

/**
 * docs/deploy-operating.md "When Redis loses its data": the one-process service (gateway, organization API and
 * webhook dispatcher) on a private redis-server whose scripts are flushed, whose data is flushed, and
 * which is killed and started again empty, while the service runs. Requests are still admitted,
 * counted and settled in Redis (a NOSCRIPT reloads the script), the day's and month's spend is
 * reseeded from the usage records (budgets keep refusing), events published afterwards are still
 * delivered by the BullMQ workers, another replica's cache invalidation still arrives, and while
 * Redis is away health says degraded and nothing answers 5xx or hangs.
 */
describe('Redis comes back empty while the service runs', () => {
  let server: RedisProcess;
  let service: TestService;
  let mock: MockProvider;
  let receiver: Receiver;
  let admin: Redis;
  let tenants = 0;

  const call = async (surface: string, method: string, path: string, headers: Record<string, string>, body?: unknown) => {
    const res = await fetch(`${service.urls[surface]}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), 'X-Provider-Key': PROVIDER_KEY, ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      // No request may hang on Redis: a hung one fails the test here.
      signal: AbortSignal.timeout(5_000),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as Json };
  };

  /** An organization with its Owner signed in, a gateway key and a webhook on the receiver taking guardrail.triggered. */
  const tenant = async (policy: Json = {}): Promise<Tenant> => {
    tenants += 1;
    const path = `/hook/${tenants}`;
    const { repositories } = service.runtime;
    const org = await repositories.organizations.create({ name: `Empty Redis org ${tenants}`, plan: 'enterprise' });
    const email = `owner-${tenants}-${org._id.slice(-6).toLowerCase()}@example.com`;
    await repositories.users.create(asOrgId(org._id), { email, role: 'Owner', password_hash: await hashPassword(PASSWORD) });
    const login = await call('org-api', 'POST', '/api/v1/auth/login', {}, { email, password: PASSWORD });
    const bearer = { authorization: `Bearer ${login.body.access_token as string}`, 'X-Org-ID': org._id };
    const key = await call('org-api', 'POST', '/api/v1/platform/api-keys', bearer, { name: 'ops', scopes: ['admin:write', 'gateway:write'] });
    const hook = await call('org-api', 'POST', '/api/v1/admin/webhooks', bearer, { url: receiver.url(path), events: ['guardrail.triggered'], secret: SECRET });
    const set = Object.keys(policy).length ? await call('gateway', 'POST', '/gateway/admin/policies', bearer, policy) : { status: 201 };
    expect([login.status, key.status, hook.status, set.status]).toEqual([200, 201, 201, 201]);
    return { orgId: org._id, email, bearer, key: key.body.key as string, keyId: key.body.id as string, path };
  };

  const chat = (t: Tenant) =>
    call('gateway', 'POST', '/v1/chat/completions', { 'X-SVC-API-Key': t.key }, { model: 'gpt-4o-mini', max_tokens: 10, messages: [{ role: 'user', content: 'hello' }] });
  const health = async () => (await call('gateway', 'GET', '/v1/health', {})).body;
  const healthUntil = async (degraded: boolean) => {
    await waitUntil(async () => (await health()).degraded === degraded, 10_000, `health degraded: ${degraded}`);
    return health();
  };

  /** What Redis holds for the organization: requests counted this minute, and the day's spend and reservations. */
  const counted = async (orgId: string) => {
    const keys = await admin.keys(`gov:{${orgId}}:*`);
    const rpm = keys.filter((key) => key.includes(':rpm:'));
    const [day] = keys.filter((key) => key.includes(':day:'));
    const requests = rpm.length ? (await admin.mget(rpm)).reduce((sum, value) => sum + Number(value ?? 0), 0) : 0;
    const [spent, reserved] = day ? await admin.hmget(day, 's', 'r') : [null, null];
    return { requests, spent: Number(spent ?? 0), reserved: Number(reserved ?? 0) };
  };

  /** Admitted, counted in Redis and settled there (the settle runs after the answer). */
  const expectCountedAndSettled = async (t: Tenant) => {
    const before = await counted(t.orgId);
    expect((await chat(t)).status).toBe(200);
    await waitUntil(async () => {
      const now = await counted(t.orgId);
      return now.requests === before.requests + 1 && now.spent > before.spent && now.reserved === 0;
    }, 5_000, 'the request counted and settled in Redis');
  };

  const guardrailEvent = (orgId: string): GatewayEvent =>
    createEvent('guardrail.triggered', orgId, { guardrail: 'rate_limit', current_count: 2, rpm_limit: 1, model: 'gpt-4o-mini', timestamp: new Date().toISOString() }, EVENT_SOURCES.gateway) as GatewayEvent;

  /** An event published now reaches the receiver through the `events` and `webhook-delivery` queues. */
  const expectEventDelivered = async (t: Tenant) => {
    const event = guardrailEvent(t.orgId);
    await service.runtime.events.publisher.publish(event);
    // (A refusal of the test's own may have sent one before: this event's delivery is looked for by its id.)
    await waitUntil(() => receiver.on(t.path).some((delivery) => (JSON.parse(delivery.body) as Json).id === event.id), 10_000, `the delivery of ${event.id}`);
  };

  /**
   * Another replica revoked a key: it wrote the store and published on Redis. This replica's cached
   * key is dropped at once (well within its 5 s cache TTL), so the next request is 401.
   */
  const expectInvalidationHeard = async () => {
    const t = await tenant();
    expect((await chat(t)).status).toBe(200);
    expect((await service.runtime.repositories.apiKeys.revoke(asOrgId(t.orgId), t.keyId))?.status).toBe('revoked');
    // This replica subscribes again once its subscriber connection is back, which reconnects on a
    // backoff of its own (up to 2 s apart), not with the connection counting is back on.
    const subscribers = async () => Number(((await admin.pubsub('NUMSUB', 'svc:invalidate')) as [string, number])[1]);
    await waitUntil(async () => (await subscribers()) === 1, 5_000, "this replica's invalidation subscription");
    const receivers = await admin.publish('svc:invalidate', JSON.stringify({ topic: 'api-key', id: hashApiKey(t.key), origin: 0 }));
    // It heard it (the runner stream relay has a channel of its own).
    expect(receivers).toBe(1);
    // If it is not, the failure lists every answer seen meanwhile.
    const seen: number[] = [];
    await waitUntil(async () => seen[seen.push((await chat(t)).status) - 1] === 401, 2_000, 'the revoked key refused').catch((err: Error) => {
      throw new Error(`${err.message}; answers: ${seen.join(', ')}`);
    });
  };

  beforeAll(async () => {
    server = await startRedisProcess();
    receiver = await Receiver.start();
    mock = await startMockProvider({ port: 0, record: false });
    service = await bootService(SERVICE, {
      REDIS_URL: server.url,
      OPENAI_BASE_URL: `${mock.url}/v1`,
      WEBHOOK_ALLOW_HTTP: 'true',
      OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
      ANOMALY_CHECK_INTERVAL_MS: '0',
    });
    admin = createRedis(server.url, 'queue', 'empty-redis-e2e');
    await waitForRedis(admin);
  });
  afterAll(async () => {
    admin?.disconnect();
    await service?.stop();
    await mock?.close();
    await receiver?.close();
    await server?.stop();
  });

  it('SCRIPT FLUSH: the next requests are admitted, counted and settled in Redis (the scripts are loaded again), and events still flow', async () => {
    const t = await tenant();
    await expectCountedAndSettled(t);
    expect(await admin.script('FLUSH')).toBe('OK');
    await expectCountedAndSettled(t);
    await expectCountedAndSettled(t);
    expect(await health()).toMatchObject({ redis: 'connected', degraded: false });
    await expectEventDelivered(t);
  });

  it('FLUSHALL: rate-limit windows and login lockouts start again from zero; queues, workers and pub/sub carry on', async () => {
    const t = await tenant({ rpm_limit: 1 });
    expect((await chat(t)).status).toBe(200);
    expect((await chat(t)).status).toBe(429);
    const wrong = [];
    for (let i = 0; i < 6; i++) wrong.push((await call('org-api', 'POST', '/api/v1/auth/login', {}, { email: t.email, password: 'not-the-password' })).status);
    expect(wrong).toEqual([401, 401, 401, 401, 401, 429]);

    await admin.flushall();
    // The minute's count is gone: one more request is admitted (documented: Redis is the only copy).
    expect((await chat(t)).status).toBe(200);
    expect((await chat(t)).status).toBe(429);
    expect((await call('org-api', 'POST', '/api/v1/auth/login', {}, { email: t.email, password: PASSWORD })).status).toBe(200);
    expect(await health()).toMatchObject({ redis: 'connected', degraded: false });
    await expectEventDelivered(t);
    await expectInvalidationHeard();
  });

  /** The organization's spend in Redis (micro-dollars): the day's and the month's counters. */
  const spendCounters = async (orgId: string) => {
    const keys = await admin.keys(`gov:{${orgId}}:*`);
    const spent = async (part: string) => {
      const key = keys.find((k) => k.includes(part) && !k.endsWith(':w'));
      return key ? Number((await admin.hget(key, 's')) ?? 0) : 0;
    };
    return { day: await spent(':day:'), month: await spent(':month:') };
  };
  /** The organization's spend today in the usage records (micro-dollars). */
  const storedMicros = async (orgId: string) => {
    const day = new Date(new Date().toISOString().slice(0, 10));
    return Math.round((await service.runtime.repositories.usage.totals(asOrgId(orgId), { from: day })).cost * 1_000_000);
  };

  it('FLUSHALL: the day and month spend is reseeded from the usage records, so an organization at its daily budget is still refused', async () => {
    const t = await tenant();
    const orgId = asOrgId(t.orgId);
    // The counters' marker is in place (written at the first check, within 5 s of the start).
    await waitUntil(async () => (await admin.exists('gov:epoch')) === 1, 10_000, 'the counters marker');
    for (let i = 0; i < 3; i++) await expectCountedAndSettled(t);
    const day = new Date(new Date().toISOString().slice(0, 10));
    await waitUntil(async () => (await service.runtime.repositories.usage.countRange(orgId, { from: day })) === 3, 5_000, 'the usage records');
    const stored = await storedMicros(t.orgId);
    expect(await spendCounters(t.orgId)).toEqual({ day: stored, month: stored });
    // A micro-dollar left today: the next request (estimated at several) is refused.
    expect((await call('gateway', 'POST', '/gateway/admin/policies', t.bearer, { daily_budget: (stored + 1) / 1_000_000 })).status).toBe(201);
    const before = await chat(t);
    expect([before.status, before.body.error?.code, before.body.error?.gateway_error_code]).toEqual([403, 'daily_budget', 'GW_COST_002']);

    await admin.flushall();
    // Within a check (5 s) one replica reseeds the spend of the period from the usage records.
    await waitUntil(async () => (await spendCounters(t.orgId)).day === stored, 15_000, 'the daily spend reseeded');
    expect(await spendCounters(t.orgId)).toEqual({ day: stored, month: stored });
    expect(await storedMicros(t.orgId)).toBe(stored);
    const after = await chat(t);
    expect([after.status, after.body.error?.code, after.body.error?.gateway_error_code]).toEqual([403, 'daily_budget', 'GW_COST_002']);
    expect(await health()).toMatchObject({ redis: 'connected', degraded: false });
  }, 40_000);

  it('killed and started again empty: degraded while away, nothing answers 5xx, then back to ok with counting, queues and subscriptions restored', async () => {
    const t = await tenant();
    await waitUntil(async () => (await admin.exists('gov:epoch')) === 1, 10_000, 'the counters marker');
    for (let i = 0; i < 5; i++) await expectCountedAndSettled(t);
    const statuses: number[] = [];
    let running = true;
    const traffic = Array.from({ length: 4 }, async () => {
      while (running) {
        const [proxied, profile] = await Promise.all([chat(t), call('org-api', 'GET', '/api/v1/user/profile', t.bearer)]);
        statuses.push(proxied.status, profile.status);
      }
    });
    try {
      await server.stop();
      expect(await healthUntil(true)).toMatchObject({ redis: 'disconnected', degraded: true });
      await new Promise((r) => setTimeout(r, 500));
      await server.start();
      expect(await healthUntil(false)).toMatchObject({ redis: 'connected', degraded: false });
    } finally {
      running = false;
      await Promise.all(traffic);
    }
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);

    await waitForRedis(admin);
    await expectCountedAndSettled(t);
    // The day's spend from before the restart (the requests settled in the old Redis) is reseeded
    // from the usage records, with the outage's spend, replayed and also in the records: an
    // over-count, never an under-count. (The records are read once the last ones are written.)
    let stored = -1;
    const settled = async () => {
      await new Promise((r) => setTimeout(r, 300));
      return stored === (stored = await storedMicros(t.orgId));
    };
    await waitUntil(settled, 5_000, 'the usage records written');
    await waitUntil(async () => (await spendCounters(t.orgId)).day >= stored, 15_000, 'the daily spend reseeded');
    await expectEventDelivered(t);
    await expectInvalidationHeard();
  }, 60_000);
});
