import { randomBytes } from 'node:crypto';
import { createRedis, Redis, waitForRedis } from '@svc/platform';
import { MemoryOnceGate, OnceGate, RedisOnceGate } from './once-gate';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('OnceGate', () => {
  let redis: Redis;
  const namespace = `test-once-${randomBytes(4).toString('hex')}`;
  beforeAll(async () => {
    redis = createRedis(process.env.TEST_REDIS_URL as string, 'hot-path', 'webhooks-once-gate-spec');
    await waitForRedis(redis);
  });
  afterAll(async () => {
    const keys = await redis.keys(`${namespace}:*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  const gates: [string, () => OnceGate][] = [
    ['redis (SET NX PX)', () => new RedisOnceGate(redis)],
    ['memory', () => new MemoryOnceGate()],
  ];

  describe.each(gates)('%s', (_name, create) => {
    it('lets the first owner through, refuses others within the window, and frees the key after it', async () => {
      const gate = create();
      const key = `${namespace}:${randomBytes(4).toString('hex')}`;
      expect(await gate.claim(key, 'evt_first', 300)).toBe(true);
      expect(await gate.claim(key, 'evt_second', 300)).toBe(false);
      // The same owner again (a retried job of the same event) still passes.
      expect(await gate.claim(key, 'evt_first', 300)).toBe(true);
      await sleep(400);
      expect(await gate.claim(key, 'evt_second', 300)).toBe(true);
      expect(await gate.claim(key, 'evt_first', 300)).toBe(false);
    });

    it('releases a key only for the owner that holds it', async () => {
      const gate = create();
      const key = `${namespace}:${randomBytes(4).toString('hex')}`;
      expect(await gate.claim(key, 'anom_first', 5_000)).toBe(true);
      await gate.release(key, 'anom_other');
      expect(await gate.claim(key, 'anom_second', 5_000)).toBe(false);
      await gate.release(key, 'anom_first');
      expect(await gate.claim(key, 'anom_second', 5_000)).toBe(true);
      await gate.release(`${namespace}:never-claimed`, 'anom_first');
    });

    it('keeps keys apart', async () => {
      const gate = create();
      expect(await gate.claim(`${namespace}:a`, 'x', 5_000)).toBe(true);
      expect(await gate.claim(`${namespace}:b`, 'y', 5_000)).toBe(true);
    });
  });

  it('sweeps expired entries of the memory gate', async () => {
    let now = 0;
    const gate = new MemoryOnceGate(() => now);
    for (let i = 0; i < 10_000; i += 1) await gate.claim(`k${i}`, 'o', 10);
    now = 100;
    expect(await gate.claim('fresh', 'o', 10)).toBe(true);
    expect(gate.size).toBe(1);
  });
});
