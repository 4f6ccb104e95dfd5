import { storeTargets } from '../testing/stores';
import { expectTenantIsolation, ORG_A, ORG_B, useRepository } from '../testing/jest-helpers';
import { DiscoveryRunRepository, NewDiscoveryRun } from './discovery-run.repository';

const run = (targetId: string, startedAt: Date, extra: Partial<NewDiscoveryRun> = {}): NewDiscoveryRun => ({
  target_id: targetId,
  provider_id: 'local',
  status: 'succeeded',
  model_count: 3,
  added: 1,
  removed: 0,
  error: null,
  triggered_by: 'usr_1',
  started_at: startedAt,
  finished_at: new Date(startedAt.getTime() + 250),
  ...extra,
});

describe.each(storeTargets(process.env.MONGODB_URI))('DiscoveryRunRepository ($name)', (target) => {
  const t = useRepository(target, (store) => new DiscoveryRunRepository(store));
  const recent = (minutesAgo: number) => new Date(t.ctx.clock.now() - minutesAgo * 60_000);

  it('records runs with their duration and lists them newest first, optionally per target', async () => {
    const first = await t.repo.record(ORG_A, run('tgt_1', recent(30)));
    await t.repo.record(ORG_A, run('tgt_2', recent(20), { status: 'failed', error: 'connection refused', model_count: 0 }));
    await t.repo.record(ORG_A, run('tgt_1', recent(10)));
    expect(first).toMatchObject({ duration_ms: 250, status: 'succeeded' });
    expect(first._id).toMatch(/^dsc_/);
    const all = await t.repo.listRecent(ORG_A, 2);
    expect(all.map((r) => r.started_at)).toEqual([recent(10), recent(20)]);
    expect((await t.repo.listRecent(ORG_A, 10, 'tgt_1')).map((r) => r.target_id)).toEqual(['tgt_1', 'tgt_1']);
  });

  it('isolates tenants', async () => {
    const mine = await t.repo.record(ORG_A, run('tgt_1', recent(5)));
    await expectTenantIsolation(t.repo, mine, { status: 'failed' });
    expect(await t.repo.listRecent(ORG_B)).toEqual([]);
  });
});
