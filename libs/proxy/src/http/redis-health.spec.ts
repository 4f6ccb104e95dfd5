import { createRedis, Redis, waitForRedis } from '@svc/platform';
import { RedisProcess, startRedisProcess } from '@svc/test-redis';
import { RedisHealthProbe } from './redis-health';

/** RedisHealthProbe against a private redis-server that is paused (SIGSTOP: the socket stays open, nothing answers). */
describe('RedisHealthProbe', () => {
  let server: RedisProcess;
  let client: Redis;

  beforeAll(async () => {
    server = await startRedisProcess();
    client = createRedis(server.url, 'hot-path', 'health-probe-spec');
    await waitForRedis(client);
  });
  afterAll(async () => {
    server.resume();
    client.disconnect();
    await server.stop();
  });

  const timed = async (probe: RedisHealthProbe) => {
    const started = performance.now();
    const status = await probe.status();
    return { status, ms: performance.now() - started };
  };

  it('is not_configured without a client', async () => {
    expect(await new RedisHealthProbe(null).status()).toBe('not_configured');
  });

  it('finds a paused Redis on an open connection within its deadline, and reuses that finding for the cache window', async () => {
    const probe = new RedisHealthProbe(client, { timeoutMs: 200, cacheMs: 1_000 });
    expect(await probe.status()).toBe('connected');
    const fresh = new RedisHealthProbe(client, { timeoutMs: 200, cacheMs: 1_000 });
    server.pause();
    try {
      // The connection is still open: only asking Redis shows that it no longer answers.
      expect(client.status).toBe('ready');
      const first = await timed(fresh);
      expect(first.status).toBe('disconnected');
      expect(first.ms).toBeGreaterThanOrEqual(150);
      expect(first.ms).toBeLessThan(600);
      // Within the window: the same finding at once, no second PING waited for.
      const again = await timed(fresh);
      expect(again).toEqual({ status: 'disconnected', ms: expect.any(Number) });
      expect(again.ms).toBeLessThan(50);
      // Concurrent askers after the window share one PING, each within the deadline.
      await new Promise((r) => setTimeout(r, 1_050));
      const started = performance.now();
      const all = await Promise.all([fresh.status(), fresh.status(), fresh.status()]);
      expect(all).toEqual(['disconnected', 'disconnected', 'disconnected']);
      expect(performance.now() - started).toBeLessThan(600);
    } finally {
      server.resume();
    }
    await new Promise((r) => setTimeout(r, 1_050));
    expect(await fresh.status()).toBe('connected');
  }, 20_000);

  it('is disconnected at once when the connection is closed', async () => {
    const lost = createRedis(server.url, 'hot-path', 'health-probe-spec-lost');
    await waitForRedis(lost);
    lost.disconnect();
    const result = await timed(new RedisHealthProbe(lost));
    expect(result.status).toBe('disconnected');
    expect(result.ms).toBeLessThan(50);
  });
});
