import { storeTargets } from '../testing/stores';
import { expectTenantIsolation, ORG_A, ORG_B, useRepository } from '../testing/jest-helpers';
import { RunnerSessionRepository } from './runner-session.repository';

describe.each(storeTargets(process.env.MONGODB_URI))('RunnerSessionRepository ($name)', (target) => {
  const t = useRepository(target, (store) => new RunnerSessionRepository(store));
  const t0 = new Date('2030-01-01T00:00:00Z');
  const later = (s: number) => new Date(t0.getTime() + s * 1000);
  const start = (orgId = ORG_A, runnerId = 'run_1', at = t0) => t.repo.create(orgId, { runner_id: runnerId, ttl_seconds: 60, budget_usd: 5 }, at);

  it('starts a session with its expiry and budget', async () => {
    const created = await start();
    expect(created).toMatchObject({ state: 'starting', runner_id: 'run_1', expires_at: later(60), budget_usd: 5, spent_usd: 0, ended_at: null });
    expect(created._id).toMatch(/^ses_/);
  });

  it('moves through states only from the allowed ones', async () => {
    const created = await start();
    expect(await t.repo.transition(ORG_A, created._id, ['starting'], { state: 'active' })).toMatchObject({ state: 'active' });
    expect(await t.repo.transition(ORG_A, created._id, ['starting'], { state: 'failed' })).toBeNull();
    expect(await t.repo.findLive(ORG_A, 'run_1')).toMatchObject({ _id: created._id });
    const ended = await t.repo.transition(ORG_A, created._id, ['active', 'stopping'], { state: 'terminated', ended_at: later(10) });
    expect(ended).toMatchObject({ state: 'terminated', ended_at: later(10) });
    expect(await t.repo.findLive(ORG_A, 'run_1')).toBeNull();
  });

  it('adds spend and lists sessions of a runner, latest first', async () => {
    const first = await start(ORG_A, 'run_1', t0);
    const second = await start(ORG_A, 'run_1', later(100));
    expect((await t.repo.addSpend(ORG_A, first._id, 1.25))?.spent_usd).toBeCloseTo(1.25);
    expect((await t.repo.addSpend(ORG_A, first._id, 0.5))?.spent_usd).toBeCloseTo(1.75);
    expect((await t.repo.listByRunner(ORG_A, 'run_1')).map((s) => s._id)).toEqual([second._id, first._id]);
  });

  it('ends every live session of a runner', async () => {
    await start(ORG_A, 'run_1');
    await start(ORG_A, 'run_1');
    await start(ORG_A, 'run_2');
    expect(await t.repo.endAllForRunner(ORG_A, 'run_1', 'terminated', later(5))).toBe(2);
    expect(await t.repo.findLive(ORG_A, 'run_1')).toBeNull();
    expect(await t.repo.findLive(ORG_A, 'run_2')).not.toBeNull();
  });

  it('finds live sessions past their TTL across organizations (TTL sweep)', async () => {
    const a = await start(ORG_A, 'run_1', t0);
    const b = await start(ORG_B, 'run_9', t0);
    const done = await start(ORG_B, 'run_8', t0);
    await t.repo.transition(ORG_B, done._id, ['starting'], { state: 'terminated' });
    expect(await t.repo.listExpiredLiveAcrossOrgs(later(30))).toEqual([]);
    expect((await t.repo.listExpiredLiveAcrossOrgs(later(61))).map((s) => s._id).sort()).toEqual([a._id, b._id].sort());
  });

  it('finds the session of a runner token by its hash, across organizations', async () => {
    const plain = await start(ORG_A, 'run_1');
    expect(plain.token_hash).toBeNull();
    const issued = await t.repo.create(ORG_B, { runner_id: 'run_2', ttl_seconds: 60, budget_usd: 5, token_hash: 'ab'.repeat(32) }, t0);
    expect(await t.repo.findByTokenHash('ab'.repeat(32))).toEqual(issued);
    expect(await t.repo.findByTokenHash('cd'.repeat(32))).toBeNull();
  });

  it('isolates tenants', async () => {
    const created = await start();
    await expectTenantIsolation(t.repo, created, { state: 'expired' });
    expect(await t.repo.transition(ORG_B, created._id, ['starting'], { state: 'terminated' })).toBeNull();
    expect(await t.repo.addSpend(ORG_B, created._id, 100)).toBeNull();
    expect(await t.repo.findLive(ORG_B, 'run_1')).toBeNull();
    expect(await t.repo.listByRunner(ORG_B, 'run_1')).toEqual([]);
    expect(await t.repo.endAllForRunner(ORG_B, 'run_1', 'terminated')).toBe(0);
    expect(await t.repo.findById(ORG_A, created._id)).toEqual(created);
  });
});
