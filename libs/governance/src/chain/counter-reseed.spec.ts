import { randomBytes } from 'node:crypto';
import { asOrgId, budgetPeriod, silentLogger, UsageRecordEntity } from '@svc/domain';
import { createRedis, Redis, waitForRedis } from '@svc/platform';
import { RedisProcess, startRedisProcess } from '@svc/test-redis';
import { anomalyScenarios } from '@svc/testing';
import { CounterEpoch } from '../counters/counter-epoch';
import { CounterKeys } from '../counters/keys';
import { dayKey, monthKey, periodKey } from '../counters/periods';
import { createOrg, openTestRepositories, TestRepositories } from './governance.fixtures';
import { periodSpend } from './period-spend';

/** A served record of `cost` at `at` (the shared fixture prices its estimate from `cost`). */
const record = (orgId: string, at: Date, cost: number): UsageRecordEntity => anomalyScenarios.usageRecord(orgId, at.getTime(), { cost, estimated_cost: cost });

/**
 * docs/governance-stages.md "When Redis lost the counters": the marker, the reseed of the day, month and
 * budget-node spend from the usage records, once per loss across replicas, on a private redis-server.
 */
describe('reseeding the spend counters when Redis lost its data', () => {
  let server: RedisProcess;
  let redis: Redis;
  let db: TestRepositories;
  let keys: CounterKeys;
  let orgId: string;
  const now = new Date();
  const day = budgetPeriod('daily', now);
  const month = budgetPeriod('monthly', now);
  // $1.25 today; $3 earlier this month (at the month's first second, today when today is the 1st).
  const earlier = new Date(month.start.getTime() + 1_000);
  const dayMicros = 1_250_000 + (earlier >= day.start ? 3_000_000 : 0);
  const monthMicros = 4_250_000;
  let nodeKey: string;

  const epoch = (reseedUnseen = false) => new CounterEpoch(redis, keys, (at) => periodSpend(db.repositories, keys, at), silentLogger(), () => true, { reseedUnseen });
  const spent = async (key: string) => Number((await redis.hget(key, 's')) ?? 0);
  const dayKeyOf = () => keys.day(orgId, dayKey(now));
  const monthKeyOf = () => keys.month(orgId, monthKey(now));

  beforeAll(async () => {
    server = await startRedisProcess();
    redis = createRedis(server.url, 'hot-path', 'reseed-test');
    await waitForRedis(redis);
    db = await openTestRepositories();
    const org = await createOrg(db.repositories);
    orgId = org._id;
    await db.repositories.usage.recordBatch([record(orgId, new Date(now.getTime() - 1_000), 1), record(orgId, now, 0.25), record(orgId, earlier, 3)]);
    // An org node created mid-month when $1 had been spent: the admit that creates its counter seeds it with $1.
    await db.repositories.budgetNodes.create(asOrgId(orgId), {
      name: 'Org',
      level: 'org',
      budget_limit: 100,
      reset_period: 'monthly',
      spend_seed: { period: periodKey('monthly', now), usd: 1 },
    });
  });
  beforeEach(async () => {
    keys = new CounterKeys(`test:${randomBytes(4).toString('hex')}`);
    const nodes = await db.repositories.budgetNodes.listAll(asOrgId(orgId));
    nodeKey = keys.node(orgId, nodes[0]._id, periodKey('monthly', now));
    await redis.flushall();
  });
  afterAll(async () => {
    redis?.disconnect();
    await db?.close();
    await server?.stop();
  });

  it('after a loss this process saw: adds the stored spend to what was settled since, and writes the marker', async () => {
    const replica = epoch();
    expect(await replica.check()).toBe('marked');
    expect(await replica.check()).toBe('present');
    await redis.flushall();
    // Settled on the empty Redis before the check: $0.50 on the day, and the node's counter created
    // by an admit with its $1 seed, then $0.50.
    await redis.hset(dayKeyOf(), 's', 500_000);
    await redis.hset(nodeKey, 's', 1_500_000);

    expect(await replica.check()).toBe('reseeded');
    expect(await spent(dayKeyOf())).toBe(dayMicros + 500_000);
    expect(await spent(monthKeyOf())).toBe(monthMicros);
    expect(await spent(nodeKey)).toBe(monthMicros + 500_000);
    expect(await redis.ttl(monthKeyOf())).toBeGreaterThan(30 * 86_400);
    expect(Number(await redis.get(keys.today(dayKey(now))))).toBe(dayMicros);
    expect(await redis.exists(keys.epochLock())).toBe(0);
    // Once per loss: the marker is back.
    expect(await replica.check()).toBe('present');
    expect(await spent(dayKeyOf())).toBe(dayMicros + 500_000);
  });

  it('reseeds once per loss across replicas: the one holding the lock', async () => {
    const [a, b] = [epoch(), epoch()];
    expect(await a.check()).toBe('marked');
    expect(await b.check()).toBe('present');
    await redis.flushall();
    const outcomes = (await Promise.all([a.check(), b.check()])).sort();
    expect(outcomes).toEqual(['busy', 'reseeded']);
    expect(await a.check()).toBe('present');
    expect(await b.check()).toBe('present');
    expect(await spent(dayKeyOf())).toBe(dayMicros);
    expect(await spent(monthKeyOf())).toBe(monthMicros);
  });

  it('a missing marker never seen (first start, an upgrade): counters kept are not counted twice, lower ones are raised', async () => {
    // Counters an earlier version kept: the day as the records say, the month lower (the lag of a write).
    await redis.hset(dayKeyOf(), 's', dayMicros);
    await redis.hset(monthKeyOf(), 's', 1_000);
    expect(await epoch(true).check()).toBe('reseeded');
    expect(await spent(dayKeyOf())).toBe(dayMicros);
    expect(await spent(monthKeyOf())).toBe(monthMicros);
    expect(await spent(nodeKey)).toBe(monthMicros);
  });

  it('a missing marker never seen, without reseedUnseen (the embedded store): only the marker is written', async () => {
    await redis.hset(dayKeyOf(), 's', 1_000);
    expect(await epoch(false).check()).toBe('marked');
    expect(await spent(dayKeyOf())).toBe(1_000);
    expect(await redis.get(keys.epoch())).not.toBeNull();
  });

  it('a reseed whose reading fails keeps the lock, and its replica resumes it at the next check', async () => {
    let fail = true;
    const flaky = new CounterEpoch(
      redis,
      keys,
      async (at) => {
        if (fail) throw new Error('the document store is unavailable');
        return periodSpend(db.repositories, keys, at);
      },
      silentLogger(),
      () => true,
      { reseedUnseen: false },
    );
    const replica = epoch();
    expect(await replica.check()).toBe('marked');
    expect(await flaky.check()).toBe('present');
    await redis.flushall();
    await expect(flaky.check()).rejects.toThrow('unavailable');
    expect(await replica.check()).toBe('busy');
    fail = false;
    expect(await flaky.check()).toBe('reseeded');
    expect(await spent(dayKeyOf())).toBe(dayMicros);
  });
});
