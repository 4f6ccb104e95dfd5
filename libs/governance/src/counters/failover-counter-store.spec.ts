import { randomBytes } from 'node:crypto';
import { silentLogger } from '@svc/domain';
import { createRedis, Redis, waitForRedis } from '@svc/platform';
import { settlePlanFor, testPlan } from './counter-store.contract';
import { FailoverCounterStore } from './failover-counter-store';
import { CounterKeys } from './keys';
import { MemoryCounterStore } from './memory-counter-store';
import { RedisCounterStore } from './redis-counter-store';
import { RedisProcess, startRedisProcess } from '@svc/test-redis';
import { AdmitLevel } from './types';

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('FailoverCounterStore', () => {
  let server: RedisProcess;
  let client: Redis;
  let failover: FailoverCounterStore;
  const keys = new CounterKeys(`test:${randomBytes(4).toString('hex')}`);
  const org = 'org_failover';

  beforeEach(async () => {
    server = await startRedisProcess();
    client = createRedis(server.url, 'hot-path', 'failover-test');
    await waitForRedis(client);
    const primary = { store: new RedisCounterStore(client), isReady: () => client.status === 'ready', ping: () => client.ping() };
    failover = new FailoverCounterStore(primary, new MemoryCounterStore({ sweepIntervalMs: 0 }), silentLogger());
  });

  afterEach(async () => {
    await failover.close();
    client.disconnect();
    await server.stop();
  });

  it('keeps admitting from memory at once when Redis dies, then returns to Redis with the spend replayed', async () => {
    const plan = () => testPlan(keys, org, { estimateMicros: 100_000 });
    const before = await failover.admit(plan());
    expect(before.store).toBe('redis');
    await failover.settle('redis', settlePlanFor(keys, plan(), 1_000_000));
    const inFlight = plan();
    expect((await failover.admit(inFlight)).store).toBe('redis');

    await server.stop();
    // Once the client has seen the connection close, Redis is not waited for at all: each admit is
    // answered from memory before a timer started with it can fire, however loaded the machine is.
    // (A request sent before the client notices waits at most the deadline; the next test covers that.)
    await until(() => client.status !== 'ready', 5_000);
    const answeredBeforeTimer: boolean[] = [];
    for (let i = 0; i < 30; i++) {
      const timer = new Promise<'timer'>((resolve) => setTimeout(() => resolve('timer'), 1));
      const admitted = failover.admit(plan());
      const first = await Promise.race([admitted.then(() => 'admit' as const), timer]);
      answeredBeforeTimer.push(first === 'admit');
      const { result, store } = await admitted;
      expect(store).toBe('memory');
      expect(result.code).toBe('ok');
    }
    expect(failover.degraded).toBe(true);
    expect(answeredBeforeTimer.every(Boolean)).toBe(true);
    // Degraded budgets start from what Redis last reported for the day.
    expect((await failover.admit(plan())).result.daySpentMicros).toBe(1_000_000);
    // Spend settled while Redis is away is kept and replayed, merged per accumulators.
    await failover.settle('memory', settlePlanFor(keys, plan(), 2_000_000));
    await failover.settle('redis', settlePlanFor(keys, inFlight, 500_000));
    expect(failover.pendingSettles).toBe(1);

    await server.start();
    await until(() => !failover.degraded, 10_000);
    expect(failover.pendingSettles).toBe(0);
    const after = await failover.admit(testPlan(keys, org, { level: AdmitLevel.Peek }));
    expect(after.store).toBe('redis');
    // The restarted server has no persistence: it holds exactly the two replayed settles.
    expect(after.result.daySpentMicros).toBe(2_500_000);
    expect(after.result.dayReservedMicros).toBe(0);
  }, 20_000);

  it('does not wait for a Redis that stops answering, and gives back what it reserved late', async () => {
    const admin = createRedis(server.url, 'hot-path', 'failover-admin');
    await waitForRedis(admin);
    try {
      await admin.call('CLIENT', 'PAUSE', '300', 'ALL');
      const started = performance.now();
      // A 50 ms timer of our own, started with the request: on a loaded machine timers fire late,
      // and the store's deadline is a timer too. Redis stays silent for 300 ms.
      const timerFired = new Promise<number>((resolve) => setTimeout(() => resolve(performance.now() - started), 50));
      const { store } = await failover.admit(testPlan(keys, org, { estimateMicros: 250_000 }));
      const waited = performance.now() - started;
      const timerLate = (await timerFired) - 50;
      console.log(`silent Redis: the request waited ${waited.toFixed(1)} ms (deadline 50 ms; a 50 ms timer fired ${timerLate.toFixed(1)} ms late)`);
      expect(waited).toBeLessThan(100 + timerLate);
      expect(store).toBe('memory');
      expect(failover.degraded).toBe(true);
      await until(() => !failover.degraded, 10_000);
      const peek = await failover.admit(testPlan(keys, org, { level: AdmitLevel.Peek }));
      expect(peek.store).toBe('redis');
      expect(peek.result.dayReservedMicros).toBe(0);
    } finally {
      admin.disconnect();
    }
  }, 20_000);

  it('keeps one replay entry per organization through an outage, and replays the sum', async () => {
    const orgs = ['org_merge_a', 'org_merge_b'];
    await server.stop();
    await until(() => client.status !== 'ready', 5_000);
    for (let i = 0; i < 300; i++) {
      for (const [n, orgId] of orgs.entries()) {
        const admitted = testPlan(keys, orgId, { estimateMicros: 10_000 });
        const { store } = await failover.admit(admitted);
        // Warnings at 1 % of the day's 10 USD: the spend below crosses it during the outage.
        await failover.settle(store, settlePlanFor(keys, admitted, (n + 1) * 1_000, [1]));
        // A reservation Redis made before the outage, settled during it.
        if (i % 100 === 0) await failover.settle('redis', settlePlanFor(keys, testPlan(keys, orgId, { estimateMicros: 10_000 }), 5_000, [1]));
      }
    }
    // Last, a reservation given back (no limits, no thresholds, as releasePlan builds it).
    const released = settlePlanFor(keys, testPlan(keys, orgs[0], { estimateMicros: 10_000 }), 0);
    await failover.settle('redis', { ...released, targets: released.targets.map((target) => ({ ...target, limitMicros: 0, thresholds: [] })) });
    expect(failover.pendingSettles).toBe(orgs.length);

    await server.start();
    await until(() => !failover.degraded, 10_000);
    expect(failover.pendingSettles).toBe(0);
    for (const [n, orgId] of orgs.entries()) {
      const { result, store } = await failover.admit(testPlan(keys, orgId, { level: AdmitLevel.Peek }));
      expect({ orgId, store, spent: result.daySpentMicros, reserved: result.dayReservedMicros, month: result.monthSpentMicros }).toEqual({
        orgId,
        store: 'redis',
        spent: 300 * (n + 1) * 1_000 + 3 * 5_000,
        reserved: 0,
        month: 300 * (n + 1) * 1_000 + 3 * 5_000,
      });
      // The replay marked the 1 % threshold as fired on Redis (the outage's warning came from memory):
      // the next settle does not fire it again.
      const next = await failover.settle('redis', settlePlanFor(keys, testPlan(keys, orgId), 1, [1]));
      expect({ orgId, fired: next.fired }).toEqual({ orgId, fired: [[], []] });
    }
  }, 30_000);

  it('returns to Redis while traffic goes on: settles kept during the replay do not hold it in memory', async () => {
    // Twenty organizations settle every 20 ms each: more than the replay sends one at a time, so a
    // replay that waited for an empty list before counting in Redis again never ended.
    const orgs = Array.from({ length: 20 }, (_, n) => `org_busy_${n}`);
    const settled = new Map(orgs.map((orgId) => [orgId, 0]));
    let running = true;
    const traffic = orgs.map(async (orgId) => {
      while (running) {
        const admitted = testPlan(keys, orgId, { rpm: { ...testPlan(keys, orgId).rpm, limit: 1_000_000 } });
        const { store } = await failover.admit(admitted);
        await failover.settle(store, settlePlanFor(keys, admitted, 1_000));
        settled.set(orgId, (settled.get(orgId) ?? 0) + 1_000);
        await new Promise((r) => setTimeout(r, 20));
      }
    });
    try {
      await server.stop();
      await until(() => failover.degraded, 5_000);
      await new Promise((r) => setTimeout(r, 300));
      await server.start();
      await until(() => !failover.degraded, 5_000);
    } finally {
      running = false;
      await Promise.all(traffic);
    }
    await until(() => failover.pendingSettles === 0, 5_000);
    for (const orgId of orgs) {
      const { result, store } = await failover.admit(testPlan(keys, orgId, { level: AdmitLevel.Peek }));
      // Redis restarted empty: it holds what was settled during and after the outage, once.
      expect({ orgId, store, spent: result.daySpentMicros, reserved: result.dayReservedMicros }).toEqual({ orgId, store: 'redis', spent: settled.get(orgId), reserved: 0 });
    }
  }, 30_000);

  it('replays a settle that Redis may have applied under its own marker, unmerged, so it counts once', async () => {
    const quick = new FailoverCounterStore(
      { store: new RedisCounterStore(client), isReady: () => client.status === 'ready', ping: () => client.ping() },
      new MemoryCounterStore({ sweepIntervalMs: 0 }),
      silentLogger(),
      { settleTimeoutMs: 100, probeIntervalMs: 100 },
    );
    const admin = createRedis(server.url, 'hot-path', 'failover-admin');
    await waitForRedis(admin);
    try {
      const admitted = testPlan(keys, 'org_sent', { estimateMicros: 40_000 });
      expect((await quick.admit(admitted)).store).toBe('redis');
      // Redis holds the settle past its deadline, then applies it: the replay must not apply it again.
      await admin.call('CLIENT', 'PAUSE', '400', 'ALL');
      await quick.settle('redis', settlePlanFor(keys, admitted, 30_000));
      expect(quick.degraded).toBe(true);
      const during = testPlan(keys, 'org_sent', { estimateMicros: 40_000 });
      const { store } = await quick.admit(during);
      await quick.settle(store, settlePlanFor(keys, during, 20_000));
      expect(quick.pendingSettles).toBe(2);

      await until(() => !quick.degraded, 10_000);
      const { result } = await quick.admit(testPlan(keys, 'org_sent', { level: AdmitLevel.Peek }));
      expect({ spent: result.daySpentMicros, reserved: result.dayReservedMicros }).toEqual({ spent: 50_000, reserved: 0 });
    } finally {
      admin.disconnect();
      await quick.close();
    }
  }, 20_000);

  it('counts in memory without a primary and is never degraded', async () => {
    const embedded = new FailoverCounterStore(null, new MemoryCounterStore({ sweepIntervalMs: 0 }), silentLogger());
    const { store } = await embedded.admit(testPlan(keys, org, { estimateMicros: 1 }));
    expect(store).toBe('memory');
    expect(embedded.degraded).toBe(false);
    await embedded.close();
  });
});
