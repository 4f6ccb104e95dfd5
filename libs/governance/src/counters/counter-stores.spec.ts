import { randomBytes } from 'node:crypto';
import { createRedis, Redis, waitForRedis } from '@svc/platform';
import { describeCounterStoreContract } from './counter-store.contract';
import { CounterKeys } from './keys';
import { MemoryCounterStore } from './memory-counter-store';
import { RedisCounterStore } from './redis-counter-store';

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
