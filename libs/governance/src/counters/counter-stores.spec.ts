import { randomBytes } from 'node:crypto';
import { createRedis, Redis, waitForRedis } from '@svc/platform';
import { CounterKeys } from './keys';
import { MemoryCounterStore } from './memory-counter-store';
import { RedisProcess, startRedisProcess } from '@svc/test-redis';
import { ADMIT_BATCH_MAX, RedisCounterStore, SETTLE_BATCH_MAX } from './redis-counter-store';
import { describeCounterStoreContract, testPlan } from './counter-store.contract';
import { AdmitLevel, AdmitPlan, AdmitResult, SettlePlan, SettleResult } from './types';

const prefix = () => `test:${randomBytes(6).toString('hex')}`;

describeCounterStoreContract(
  'memory',
  async () => ({ store: new MemoryCounterStore({ sweepIntervalMs: 0 }), keys: new CounterKeys(prefix()) }),
  async ({ store }) => store.close(),
);

// A private redis-server: the batch specs count the EVALSHA calls the server has run, and the
// shared one also runs every other test worker's.
let server: RedisProcess;
let redis: Redis;
beforeAll(async () => {
  server = await startRedisProcess();
  redis = createRedis(server.url, 'hot-path', 'governance-test');
  await waitForRedis(redis);
});
afterAll(async () => {
  await redis?.quit();
  await server?.stop();
});

describeCounterStoreContract(
  'redis',
  async () => ({ store: new RedisCounterStore(redis), keys: new CounterKeys(prefix()) }),
  async ({ store }) => store.close(),
);

/**
 * The EVALSHA calls the server runs while `work` runs, from its command statistics. (Not MONITOR:
 * ioredis enters monitoring mode a microtask after MONITOR's reply, so a command relayed in the
 * same read is taken for a reply to nothing, "Command queue state error".)
 */
async function evalshaCalls(work: () => Promise<unknown>): Promise<number> {
  const before = await evalshaRun();
  await work();
  return (await evalshaRun()) - before;
}

async function evalshaRun(): Promise<number> {
  const stats = await redis.info('commandstats');
  return Number(/^cmdstat_evalsha:calls=(\d+)/m.exec(stats)?.[1] ?? 0);
}

describe('MemoryCounterStore expiry', () => {
  it('forgets counters when their TTL passes', async () => {
    let now = 1_000_000;
    const store = new MemoryCounterStore({ now: () => now, sweepIntervalMs: 0 });
    const keys = new CounterKeys('t');
    await store.settle({
      markerKey: keys.settled('org_1', 'r1'),
      markerTtlSeconds: 10,
      reservedMicros: 0,
      actualMicros: 5,
      targets: [{ key: keys.day('org_1', 'd'), ttlSeconds: 10, limitMicros: 0, warnKey: 'w', thresholds: [] }],
      todayKey: keys.today('d'),
      todayTtlSeconds: 10,
    });
    expect(store.size()).toBe(3);
    now += 10_001;
    expect(store.size()).toBe(0);
    await store.close();
  });
});

describe('RedisCounterStore settle batches', () => {
  const keys = new CounterKeys(prefix());
  const plan = (marker: string, actualMicros: number, thresholds: number[] = []): SettlePlan => {
    const day = keys.day('org_batch', '2026-11-24');
    return {
      markerKey: keys.settled('org_batch', marker),
      markerTtlSeconds: 60,
      reservedMicros: 0,
      actualMicros,
      targets: [{ key: day, ttlSeconds: 60, limitMicros: 1_000, warnKey: keys.warned(day), thresholds }],
      todayKey: keys.today('2026-11-24'),
      todayTtlSeconds: 60,
    };
  };

  it('sends the settles issued together as one script call, each with its own result', async () => {
    const store = new RedisCounterStore(redis);
    await store.settle(plan('warm', 0)); // loads the script
    let results: SettleResult[] = [];
    const calls = await evalshaCalls(async () => {
      results = await Promise.all([plan('a', 100), plan('b', 200, [50]), plan('a', 999), plan('c', 300, [50, 90])].map((p) => store.settle(p)));
    });
    expect(calls).toBe(1);
    expect(results.map((r) => r.applied)).toEqual([true, true, false, true]);
    // In order, as one by one: spend accumulates, a repeated marker does nothing, thresholds fire once.
    expect(results.map((r) => r.spentMicros)).toEqual([[100], [300], [], [600]]);
    expect(results.map((r) => r.fired)).toEqual([[[]], [[]], [], [[50]]]);
    await store.close();
  });

  it(`splits a larger batch into calls of at most ${SETTLE_BATCH_MAX} settles`, async () => {
    const store = new RedisCounterStore(redis);
    await store.settle(plan('warm2', 0));
    const count = SETTLE_BATCH_MAX * 2 + 5;
    let results: SettleResult[] = [];
    const calls = await evalshaCalls(async () => {
      results = await Promise.all(Array.from({ length: count }, (_, i) => store.settle(plan(`many-${i}`, 1))));
    });
    expect(calls).toBe(3);
    expect(results.every((r) => r.applied)).toBe(true);
    expect(results.at(-1)?.spentMicros).toEqual([results[0].spentMicros[0] + count - 1]);
    await store.close();
  });

  it('rejects only the settle that Redis refuses; the others of its batch are applied', async () => {
    const store = new RedisCounterStore(redis);
    await store.settle(plan('warm3', 0));
    let settles: Promise<SettleResult>[] = [];
    const calls = await evalshaCalls(async () => {
      // Redis refuses a negative expiry: that settle fails, in the middle of the batch.
      settles = [store.settle(plan('x1', 5)), store.settle({ ...plan('x2', 1), markerTtlSeconds: -1 }), store.settle(plan('x3', 7))];
      await Promise.allSettled(settles);
    });
    expect(calls).toBe(1);
    await expect(settles[1]).rejects.toThrow(/expire/i);
    const [first, third] = [await settles[0], await settles[2]];
    expect(first.applied && third.applied).toBe(true);
    expect(third.spentMicros[0] - first.spentMicros[0]).toBe(7);
    await store.close();
  });
});

describe('RedisCounterStore admit batches', () => {
  const keys = new CounterKeys(prefix());
  const orgs = ['org_batch_a', 'org_batch_b'];
  const acc = (key: string, limitMicros: number, seedMicros = 0) => ({ key, limitMicros, ttlSeconds: 120, seedMicros });
  /** Admits of two organizations with different numbers of keys (nodes, a session), against tight limits. */
  const plans = (): AdmitPlan[] => {
    const [a, b] = orgs;
    const nodes = [acc(keys.node(a, 'n_org', 'd'), 50_000_000), acc(keys.node(a, 'n_team', 'd'), 2_000_000)];
    const session = acc(keys.session(b, 'ses_1'), 1_000_000, 200_000);
    const rpm = (org: string) => ({ key: keys.rpm(org, 7), keysKey: keys.rpmPerKey(org, 7), keyField: 'key_a', busyKey: keys.busiest(7), limit: 3, ttlSeconds: 120 });
    return [
      testPlan(keys, a, { estimateMicros: 900_000, nodes, rpm: rpm(a) }),
      testPlan(keys, b, { estimateMicros: 500_000, session, rpm: rpm(b) }),
      testPlan(keys, a, { estimateMicros: 900_000, nodes, rpm: rpm(a) }),
      testPlan(keys, b, { estimateMicros: 500_000, session, rpm: rpm(b) }), // over the session budget
      testPlan(keys, a, { estimateMicros: 900_000, nodes, rpm: rpm(a) }), // over the team node
      testPlan(keys, a, { level: AdmitLevel.Rate, rpm: rpm(a) }), // fourth in the minute: over rpm 3
      testPlan(keys, b, { level: AdmitLevel.Peek, rpm: rpm(b) }),
    ];
  };

  it('sends the admits issued together as one script call, each seeing the counters as the ones before it left them', async () => {
    const store = new RedisCounterStore(redis);
    await store.admit(testPlan(keys, 'org_batch_warm')); // loads the script
    let together: AdmitResult[] = [];
    const calls = await evalshaCalls(async () => {
      together = await Promise.all(plans().map((plan) => store.admit(plan)));
    });
    expect(calls).toBe(1);
    // The same admits one at a time, on the in-memory store that the contract suite holds to Redis's behaviour.
    const memory = new MemoryCounterStore({ sweepIntervalMs: 0 });
    const alone: AdmitResult[] = [];
    for (const plan of plans()) alone.push(await memory.admit(plan));
    await memory.close();
    expect(together.map((r) => r.code)).toEqual(['ok', 'ok', 'ok', 'session', 'node', 'rpm', 'ok']);
    expect(together).toEqual(alone);
    await store.close();
  });

  it(`splits a larger batch into calls of at most ${ADMIT_BATCH_MAX} admits`, async () => {
    const store = new RedisCounterStore(redis);
    const org = 'org_batch_many';
    await store.admit(testPlan(keys, org, { level: AdmitLevel.Peek }));
    const count = ADMIT_BATCH_MAX * 2 + 5;
    let results: AdmitResult[] = [];
    const calls = await evalshaCalls(async () => {
      results = await Promise.all(Array.from({ length: count }, () => store.admit(testPlan(keys, org, { level: AdmitLevel.Rate }))));
    });
    expect(calls).toBe(3);
    expect(results.map((r) => r.rpmCount)).toEqual(Array.from({ length: count }, (_, i) => i + 1));
    await store.close();
  });

  it('rejects only the admit that Redis refuses; the others of its batch keep their results', async () => {
    const store = new RedisCounterStore(redis);
    const org = 'org_batch_fail';
    await store.admit(testPlan(keys, org, { level: AdmitLevel.Peek }));
    // An expiry that is not a number fails that admit's EXPIRE, in the middle of the batch.
    const broken = testPlan(keys, org, { level: AdmitLevel.Rate });
    let admits: Promise<AdmitResult>[] = [];
    const calls = await evalshaCalls(async () => {
      admits = [
        store.admit(testPlan(keys, org, { level: AdmitLevel.Rate })),
        store.admit({ ...broken, rpm: { ...broken.rpm, ttlSeconds: Number.NaN } }),
        store.admit(testPlan(keys, org, { level: AdmitLevel.Rate })),
      ];
      await Promise.allSettled(admits);
    });
    expect(calls).toBe(1);
    await expect(admits[1]).rejects.toThrow(/not an integer|out of range/i);
    // The refused admit's INCR ran before its EXPIRE failed (as it would have alone): it counts.
    await expect(admits[0]).resolves.toMatchObject({ code: 'ok', rpmCount: 1 });
    await expect(admits[2]).resolves.toMatchObject({ code: 'ok', rpmCount: 3 });
    await store.close();
  });

  it('rejects, rather than leaves waiting, the admits of a batch whose arguments cannot be built', async () => {
    const store = new RedisCounterStore(redis);
    const broken = { ...testPlan(keys, 'org_batch_args'), nodes: undefined as unknown as AdmitPlan['nodes'] };
    const admits = [store.admit(testPlan(keys, 'org_batch_args')), store.admit(broken)];
    for (const admit of admits) await expect(admit).rejects.toThrow(TypeError);
    await store.close();
  });

  it('sends the admits still waiting when it closes', async () => {
    const store = new RedisCounterStore(redis);
    const admit = store.admit(testPlan(keys, 'org_batch_close', { level: AdmitLevel.Rate }));
    await store.close();
    await expect(admit).resolves.toMatchObject({ code: 'ok', rpmCount: 1 });
  });
});
