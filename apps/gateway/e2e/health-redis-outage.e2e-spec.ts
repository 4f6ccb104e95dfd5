import { RedisProcess, startRedisProcess } from '@svc/testing';
import { GatewayHarness, Json, startGateway } from './harness';

/** The service endpoints of SPEC.md "Health and service endpoints", none of which needs Redis to answer. */
const ENDPOINTS = ['/health', '/v1/health', '/v1/providers/health', '/v1/health/detailed', '/', '/metrics'];

/**
 * The health and service endpoints while the gateway's Redis is down (killed: the connection is
 * refused) or partitioned (paused with SIGSTOP: the socket stays open and nothing answers). Each
 * answers 200 without hanging, and what they report is what the gateway found.
 */
describe('gateway health endpoints with Redis down', () => {
  let server: RedisProcess;
  let gw: GatewayHarness;

  const getJson = async (path: string): Promise<{ status: number; body: Json; ms: number }> => {
    const started = performance.now();
    const res = await fetch(`${gw.url}${path}`, { signal: AbortSignal.timeout(10_000) });
    return { status: res.status, body: (await res.json()) as Json, ms: performance.now() - started };
  };

  async function healthUntil(degraded: boolean, timeoutMs = 10_000): Promise<Json> {
    const deadline = Date.now() + timeoutMs;
    let last = (await getJson('/v1/health')).body;
    while (last.degraded !== degraded && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      last = (await getJson('/v1/health')).body;
    }
    return last;
  }

  beforeAll(async () => {
    server = await startRedisProcess();
    gw = await startGateway({ env: { REDIS_URL: server.url } });
  });
  afterAll(async () => {
    await gw.stop();
    await server.stop();
  });

  it('killed: every endpoint answers 200 at once, and the detailed health is degraded with an alert', async () => {
    expect(await healthUntil(false)).toMatchObject({ redis: 'connected', degraded: false });
    await server.stop();
    try {
      for (const path of ENDPOINTS) {
        const started = performance.now();
        const res = await fetch(`${gw.url}${path}`, { signal: AbortSignal.timeout(10_000) });
        expect({ path, status: res.status, fast: performance.now() - started < 2_000 }).toEqual({ path, status: 200, fast: true });
      }
      expect((await getJson('/v1/health')).body).toMatchObject({ status: 'ok', redis: 'disconnected', degraded: true });
      const detailed = await getJson('/v1/health/detailed');
      expect(detailed.status).toBe(200);
      expect(detailed.body).toMatchObject({ overall_status: 'degraded', components: { redis: { status: 'disconnected' } } });
      expect(detailed.body.alerts).toEqual([{ level: 'warning', message: expect.stringContaining('backing service') }]);
    } finally {
      await server.start();
    }
    expect(await healthUntil(false)).toMatchObject({ redis: 'connected', degraded: false });
  }, 60_000);

  it('paused, no request made: /v1/health asks Redis itself and reports it disconnected and degraded, within its deadline', async () => {
    expect(await healthUntil(false)).toMatchObject({ redis: 'connected', degraded: false });
    server.pause();
    try {
      // Nothing meets the partition: no proxy request, no health call for longer than the health
      // probe's cache window (1 s, docs/deploy.md), so the first answer is a fresh PING's.
      await new Promise((r) => setTimeout(r, 1_200));
      const first = await getJson('/v1/health');
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ status: 'ok', redis: 'disconnected', degraded: true });
      // The PING waits at most 250 ms; the answer never hangs on Redis.
      expect(first.ms).toBeLessThan(1_000);
      // Polled again at once: the same finding from the cache, without a second wait.
      const again = await getJson('/v1/health');
      expect(again.body).toMatchObject({ redis: 'disconnected', degraded: true });
      expect(again.ms).toBeLessThan(200);
      for (const path of ['/health', '/v1/providers/health']) {
        const res = await getJson(path);
        expect({ path, status: res.status, fast: res.ms < 1_000 }).toEqual({ path, status: 200, fast: true });
      }
      const detailed = await getJson('/v1/health/detailed');
      expect(detailed.status).toBe(200);
      expect(detailed.body).toMatchObject({ overall_status: 'degraded', components: { redis: { status: 'disconnected' } } });
    } finally {
      server.resume();
    }
    expect(await healthUntil(false)).toMatchObject({ redis: 'connected', degraded: false });
  }, 60_000);

  it('paused: the detailed health that finds Redis unreachable reports degraded in that same answer, within its bounded wait', async () => {
    expect(await healthUntil(false)).toMatchObject({ redis: 'connected', degraded: false });
    server.pause();
    try {
      // No request has met the partition yet: the detailed health's own reads of Redis are the first.
      const detailed = await getJson('/v1/health/detailed');
      expect(detailed.status).toBe(200);
      expect(detailed.ms).toBeLessThan(3_000);
      expect(detailed.body.overall_status).toBe('degraded');
      expect(detailed.body.alerts).toEqual([{ level: 'warning', message: expect.stringContaining('backing service') }]);
      expect((await getJson('/v1/health')).body).toMatchObject({ status: 'ok', degraded: true });
    } finally {
      server.resume();
    }
    expect(await healthUntil(false)).toMatchObject({ redis: 'connected', degraded: false });
  }, 60_000);
});
