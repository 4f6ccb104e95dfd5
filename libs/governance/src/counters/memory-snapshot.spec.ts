import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { settlePlanFor, testPlan } from './counter-store.contract';
import { CounterKeys } from './keys';
import { MemoryCounterStore } from './memory-counter-store';

/** The embedded mode's counters survive a restart through a snapshot in DATA_DIR. */
describe('MemoryCounterStore snapshot', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-counters-'));
  const keys = new CounterKeys('snap');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const path = (name: string) => join(dir, `${name}.json`);

  it('keeps spend, quota and thresholds across a restart, but no reservation of the previous process and no per-request marker', async () => {
    const file = path('restart');
    const first = new MemoryCounterStore({ snapshot: { path: file } });
    const spent = testPlan(keys, 'org_a', { estimateMicros: 1_000 });
    expect((await first.admit(spent)).code).toBe('ok');
    await first.settle(settlePlanFor(keys, spent, 4_000_000));
    // A request still in flight when the process stops: its reservation must not outlive it.
    expect((await first.admit(testPlan(keys, 'org_a', { estimateMicros: 3_000_000 }))).code).toBe('ok');
    await first.close();
    expect(readFileSync(file, 'utf8')).not.toMatch(/:settled:|:released:/);

    const second = new MemoryCounterStore({ snapshot: { path: file } });
    const after = await second.admit(testPlan(keys, 'org_a', { estimateMicros: 0 }));
    expect(after).toMatchObject({ code: 'ok', daySpentMicros: 4_000_000, dayReservedMicros: 0, monthSpentMicros: 4_000_000 });
    // The day's limit (10 $) counts the spend from before the restart: 4 $ spent, 7 $ more is refused.
    expect((await second.admit(testPlan(keys, 'org_a', { estimateMicros: 7_000_000 }))).code).toBe('daily_budget');
    await second.close();
  });

  it('drops expired entries, and starts empty (reporting it) from an unreadable file', async () => {
    let clock = 1_000_000;
    const file = path('expiry');
    const first = new MemoryCounterStore({ now: () => clock, sweepIntervalMs: 0, snapshot: { path: file } });
    const plan = testPlan(keys, 'org_b');
    await first.settle(settlePlanFor(keys, plan, 2_000_000));
    await first.close();
    clock += 121_000; // the test plan's counters live 120 s
    const later = new MemoryCounterStore({ now: () => clock, sweepIntervalMs: 0, snapshot: { path: file } });
    expect(later.size()).toBe(0);
    await later.close();

    const broken = path('broken');
    writeFileSync(broken, '{"version":1,"entr');
    const errors: unknown[] = [];
    const fresh = new MemoryCounterStore({ snapshot: { path: broken, onError: (err) => errors.push(err) } });
    expect(fresh.size()).toBe(0);
    expect(errors).toHaveLength(1);
    await fresh.close();
  });

  it('writes nothing when nothing changed, and a failed write is reported, not thrown', async () => {
    const errors: unknown[] = [];
    const store = new MemoryCounterStore({ snapshot: { path: join(dir, 'missing-dir', 'x.json'), onError: (err) => errors.push(err) } });
    store.save();
    expect(errors).toHaveLength(0);
    await store.settle(settlePlanFor(keys, testPlan(keys, 'org_c'), 1));
    await expect(store.close()).resolves.toBeUndefined();
    expect(errors).toHaveLength(1);
  });
});
