import { randomBytes } from 'node:crypto';
import { createRedis, Redis, waitForRedis } from '@svc/platform';
import { describeCounterStoreContract } from './counter-store.contract';
import { CounterKeys } from './keys';
import { MemoryCounterStore } from './memory-counter-store';
import { RedisCounterStore, SETTLE_BATCH_MAX } from './redis-counter-store';
import type { SettlePlan, SettleResult } from './types';

const prefix = () => `test:${randomBytes(6).toString('hex')}`;

describeCounterStoreContract(
  'memory',
  async () => ({ store: new MemoryCounterStore({ sweepIntervalMs: 0 }), keys: new CounterKeys(prefix()) }),
  async ({ store }) => store.close(),
);

let redis: Redis;
beforeAll(async () => {
  redis = createRedis(process.env.TEST_REDIS_URL as string, 'hot-path', 'governance-test');
  await waitForRedis(redis);
});
afterAll(() => redis.quit());

describeCounterStoreContract(
  'redis',
  async () => ({ store: new RedisCounterStore(redis), keys: new CounterKeys(prefix()) }),
  async ({ store }) => store.close(),
);

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

  /** The EVALSHA calls our client sends while `work` runs (MONITOR, filtered by the client's own address). */
  async function evalshaCalls(work: () => Promise<unknown>): Promise<number> {
    const source = `127.0.0.1:${redis.stream.localPort}`;
    const monitor = await redis.monitor();
    let calls = 0;
    monitor.on('monitor', (_time: string, args: string[], from: string) => {
      if (from === source && args[0]?.toLowerCase() === 'evalsha') calls += 1;
    });
    await redis.ping();
    await work();
    await redis.ping(); // MONITOR has relayed everything before this PING's reply arrives
    await new Promise((resolve) => setTimeout(resolve, 20));
    monitor.disconnect();
    return calls;
  }

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

  it('rejects every settle of a batch whose call fails', async () => {
    const store = new RedisCounterStore(redis);
    // Redis refuses a negative expiry, which fails the script call and with it the whole batch.
    const settles = [store.settle({ ...plan('x', 1), markerTtlSeconds: -1 }), store.settle(plan('y', 2))];
    for (const settle of settles) await expect(settle).rejects.toThrow(/expire/i);
    await store.close();
  });
});
