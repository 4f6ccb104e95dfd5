import { randomBytes } from 'node:crypto';
import { CounterKeys } from './keys';
import { Accumulator, AdmitLevel, AdmitPlan, CounterStore, SettlePlan } from './types';

/**
 * One contract for both counter stores: every case runs against the Redis scripts and against
 * MemoryCounterStore, so the fallback behaves exactly as Redis does. Used by counter-stores.spec.ts.
 */

export interface ContractStore {
  store: CounterStore;
  keys: CounterKeys;
}

const acc = (key: string, limitMicros: number, seedMicros = 0): Accumulator => ({ key, limitMicros, ttlSeconds: 120, seedMicros });

export function testPlan(keys: CounterKeys, orgId: string, overrides: Partial<AdmitPlan> = {}): AdmitPlan {
  const minute = 1000;
  return {
    orgId,
    level: AdmitLevel.Reserve,
    releaseMarkerKey: keys.released(orgId, randomBytes(4).toString('hex')),
    todayKey: keys.today('20250101'),
    quota: { key: keys.quota(orgId, '20250101'), ttlSeconds: 120, limit: null },
    rpm: { key: keys.rpm(orgId, minute), keysKey: keys.rpmPerKey(orgId, minute), keyField: 'key_a', busyKey: keys.busiest(minute), limit: 1000, ttlSeconds: 120 },
    day: acc(keys.day(orgId, '20250101'), 10_000_000),
    month: acc(keys.month(orgId, '202501'), 100_000_000),
    estimateMicros: 0,
    autoStopMicros: null,
    budgetsKey: keys.budgets('20250101'),
    budgetsTtlSeconds: 120,
    nodes: [],
    session: null,
    ...overrides,
  };
}

export function settlePlanFor(keys: CounterKeys, plan: AdmitPlan, actualMicros: number, thresholds: number[] = []): SettlePlan {
  const targets = [plan.day, plan.month, ...plan.nodes, ...(plan.session ? [plan.session] : [])];
  return {
    markerKey: keys.settled(plan.orgId, randomBytes(6).toString('hex')),
    markerTtlSeconds: 120,
    reservedMicros: plan.estimateMicros,
    actualMicros,
    targets: targets.map((t) => ({ key: t.key, ttlSeconds: t.ttlSeconds, limitMicros: t.limitMicros, warnKey: keys.warned(t.key), thresholds })),
    todayKey: plan.todayKey,
    todayTtlSeconds: 120,
  };
}

export function describeCounterStoreContract(name: string, open: () => Promise<ContractStore>, close: (store: ContractStore) => Promise<void>): void {
  describe(`counter store contract (${name})`, () => {
    let subject: ContractStore;
    let org: string;
    beforeEach(async () => {
      subject = await open();
      org = `org_${randomBytes(6).toString('hex')}`;
    });
    afterEach(() => close(subject));
    const plan = (overrides: Partial<AdmitPlan> = {}) => testPlan(subject.keys, org, overrides);

    it('peeks without counting', async () => {
      const result = await subject.store.admit(plan({ level: AdmitLevel.Peek }));
      expect(result).toMatchObject({ code: 'ok', rpmCount: 0, quotaUsed: 0, daySpentMicros: 0, dayReservedMicros: 0 });
      expect((await subject.store.rateStatus(plan().rpm.key, plan().rpm.keysKey)).count).toBe(0);
    });

    it('refuses over the plan quota before counting the minute, and counts only admitted requests', async () => {
      const quota = { ...plan().quota, limit: 2 };
      expect((await subject.store.admit(plan({ level: AdmitLevel.Rate, quota }))).quotaUsed).toBe(1);
      expect((await subject.store.admit(plan({ level: AdmitLevel.Quota, quota }))).quotaUsed).toBe(1);
      expect((await subject.store.admit(plan({ level: AdmitLevel.Rate, quota }))).quotaUsed).toBe(2);
      const refused = await subject.store.admit(plan({ level: AdmitLevel.Rate, quota }));
      expect(refused).toMatchObject({ code: 'quota', quotaUsed: 2, rpmCount: 2 });
    });

    it('admits up to the RPM limit, counts per key and ranks organizations', async () => {
      const rpm = { ...plan().rpm, limit: 3 };
      const codes: string[] = [];
      for (const keyField of ['key_a', 'key_b', 'key_a', 'key_b']) {
        codes.push((await subject.store.admit(plan({ level: AdmitLevel.Rate, rpm: { ...rpm, keyField } }))).code);
      }
      expect(codes).toEqual(['ok', 'ok', 'ok', 'rpm']);
      expect(await subject.store.rateStatus(rpm.key, rpm.keysKey)).toEqual({ count: 3, keys: { key_a: 2, key_b: 1 } });
      expect(await subject.store.busiest(rpm.busyKey, 100)).toContainEqual({ orgId: org, count: 3 });
    });

    it('reserves the estimate against day and month, and refuses what would exceed either', async () => {
      const first = await subject.store.admit(plan({ estimateMicros: 6_000_000 }));
      expect(first).toMatchObject({ code: 'ok', dayReservedMicros: 6_000_000, monthReservedMicros: 6_000_000 });
      expect((await subject.store.admit(plan({ estimateMicros: 5_000_000 }))).code).toBe('daily_budget');
      const monthly = await subject.store.admit(plan({ estimateMicros: 3_000_000, month: acc(plan().month.key, 8_000_000) }));
      expect(monthly.code).toBe('monthly_budget');
      expect(monthly).toMatchObject({ daySpentMicros: 0, dayReservedMicros: 6_000_000 });
    });

    it('stops at a reached auto-stop budget', async () => {
      await subject.store.admit(plan({ estimateMicros: 2_000_000 }));
      expect((await subject.store.admit(plan({ estimateMicros: 1, autoStopMicros: 3_000_000 }))).code).toBe('ok');
      expect((await subject.store.admit(plan({ estimateMicros: 1, autoStopMicros: 2_000_000 }))).code).toBe('auto_stop');
    });

    it('reserves across budget nodes and the session all or nothing', async () => {
      const nodes = [acc(subject.keys.node(org, 'n_org', 'd'), 50_000_000), acc(subject.keys.node(org, 'n_team', 'd'), 1_000_000)];
      const refused = await subject.store.admit(plan({ estimateMicros: 1_500_000, nodes }));
      expect(refused).toMatchObject({ code: 'node', deniedIndex: 1, deniedUsedMicros: 0, dayReservedMicros: 0 });
      const session = acc(subject.keys.session(org, 'ses_1'), 2_000_000, 1_200_000);
      const bySession = await subject.store.admit(plan({ estimateMicros: 900_000, nodes, session }));
      expect(bySession).toMatchObject({ code: 'session', deniedUsedMicros: 1_200_000, dayReservedMicros: 0 });
      const ok = await subject.store.admit(plan({ estimateMicros: 700_000, nodes, session }));
      expect(ok).toMatchObject({ code: 'ok', dayReservedMicros: 700_000 });
      const again = await subject.store.admit(plan({ estimateMicros: 200_000, nodes, session }));
      expect(again).toMatchObject({ code: 'session', deniedUsedMicros: 1_900_000 });
    });

    it('applies a seed only to an accumulator that does not exist yet', async () => {
      const day = acc(plan().day.key, 10_000_000, 4_000_000);
      expect((await subject.store.admit(plan({ day, estimateMicros: 1 }))).daySpentMicros).toBe(4_000_000);
      const later = await subject.store.admit(plan({ day: { ...day, seedMicros: 9_000_000 }, estimateMicros: 1 }));
      expect(later.daySpentMicros).toBe(4_000_000);
    });

    it('settles once: reservation to spend, today total, thresholds that fire once per period', async () => {
      const admitted = plan({ estimateMicros: 3_000_000 });
      expect((await subject.store.admit(admitted)).code).toBe('ok');
      const settle = settlePlanFor(subject.keys, admitted, 5_500_000, [50, 75, 90]);
      const result = await subject.store.settle(settle);
      expect(result).toEqual({ applied: true, spentMicros: [5_500_000, 5_500_000], fired: [[50], []] });
      expect(await subject.store.settle(settle)).toMatchObject({ applied: false });
      const peek = await subject.store.admit(plan({ level: AdmitLevel.Peek }));
      expect(peek).toMatchObject({ daySpentMicros: 5_500_000, dayReservedMicros: 0, monthSpentMicros: 5_500_000 });
      const more = plan({ estimateMicros: 0 });
      const next = await subject.store.settle(settlePlanFor(subject.keys, more, 2_000_000, [50, 75, 90]));
      expect(next.fired).toEqual([[75], []]);
      expect((await subject.store.today(admitted.todayKey, admitted.budgetsKey)).spentMicros).toBeGreaterThanOrEqual(7_500_000);
    });

    it('never lets a reservation go below zero when settling more than was reserved', async () => {
      const admitted = plan({ estimateMicros: 1_000 });
      await subject.store.admit(admitted);
      await subject.store.settle({ ...settlePlanFor(subject.keys, admitted, 0), reservedMicros: 5_000 });
      expect((await subject.store.admit(plan({ level: AdmitLevel.Peek }))).dayReservedMicros).toBe(0);
    });

    it('admits exactly the limit out of 200 parallel requests, every time', async () => {
      for (let round = 0; round < 3; round++) {
        const rpm = { ...plan().rpm, key: subject.keys.rpm(org, 5000 + round), keysKey: subject.keys.rpmPerKey(org, 5000 + round), limit: 50 };
        const results = await Promise.all(Array.from({ length: 200 }, () => subject.store.admit(plan({ level: AdmitLevel.Rate, rpm }))));
        expect(results.filter((r) => r.code === 'ok')).toHaveLength(50);
        expect(Math.max(...results.map((r) => r.rpmCount))).toBe(50);
      }
    });

    it('keeps parallel reservations within the daily budget', async () => {
      const day = acc(plan().day.key, 1_000_000);
      const results = await Promise.all(Array.from({ length: 40 }, () => subject.store.admit(plan({ day, estimateMicros: 30_000 }))));
      expect(results.filter((r) => r.code === 'ok')).toHaveLength(33);
      expect(results.filter((r) => r.code === 'daily_budget')).toHaveLength(7);
    });
  });
}
