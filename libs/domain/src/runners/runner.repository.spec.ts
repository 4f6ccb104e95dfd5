import { DuplicateKeyError } from '../store/types';
import { storeTargets } from '../testing/stores';
import { expectTenantIsolation, ORG_A, ORG_B, useRepository } from '../testing/jest-helpers';
import { NewRunner, RunnerRepository } from './runner.repository';

const runner = (extra: Partial<NewRunner> = {}): NewRunner => ({ provider_type: 'fake', tool_profile: 'locked', ttl_seconds: 600, ...extra });

describe.each(storeTargets(process.env.MONGODB_URI))('RunnerRepository ($name)', (target) => {
  const t = useRepository(target, (store) => new RunnerRepository(store));

  it('creates a runner in provisioning at version 1', async () => {
    const created = await t.repo.create(ORG_A, runner({ runtime_version: '1.0' }));
    expect(created).toMatchObject({
      state: 'provisioning',
      version: 1,
      provider_type: 'fake',
      tool_profile: 'locked',
      ttl_seconds: 600,
      session_budget_usd: 5,
      active_session_id: null,
      runtime_version: '1.0',
    });
    expect(created._id).toMatch(/^run_/);
  });

  it('applies an optimistic update once per version, bumping it', async () => {
    const created = await t.repo.create(ORG_A, runner());
    const ready = await t.repo.updateVersioned(ORG_A, created._id, 1, { state: 'ready' }, ['provisioning']);
    expect(ready).toMatchObject({ state: 'ready', version: 2 });
    expect(await t.repo.updateVersioned(ORG_A, created._id, 1, { state: 'failed' })).toBeNull();
    expect(await t.repo.updateVersioned(ORG_A, created._id, 2, { state: 'running' }, ['provisioning'])).toBeNull();
    const running = await t.repo.updateVersioned(ORG_A, created._id, 2, { state: 'running', active_session_id: 'ses_1' }, ['ready']);
    expect(running).toMatchObject({ state: 'running', version: 3, active_session_id: 'ses_1' });
  });

  it('lists runners of a state, paged, newest first', async () => {
    const day = (d: number) => new Date(Date.UTC(2030, 0, d));
    const a = await t.repo.create(ORG_A, runner(), day(1));
    await t.repo.create(ORG_A, runner(), day(2));
    await t.repo.create(ORG_A, runner(), day(3));
    await t.repo.updateVersioned(ORG_A, a._id, 1, { state: 'ready' });
    expect((await t.repo.listRunners(ORG_A, { state: 'provisioning' })).total).toBe(2);
    const page = await t.repo.listRunners(ORG_A, { limit: 2, offset: 1 });
    expect(page).toMatchObject({ total: 3, limit: 2, offset: 1 });
    expect(page.items.map((r) => r.created_at)).toEqual([day(2), day(1)]);
  });

  it('registers a self-hosted machine once per organization', async () => {
    const created = await t.repo.create(ORG_A, runner({ provider_type: 'byovm', machine_id: 'm-1' }));
    await t.repo.create(ORG_A, runner());
    await t.repo.create(ORG_A, runner());
    await t.repo.create(ORG_B, runner({ machine_id: 'm-1' }));
    await expect(t.repo.create(ORG_A, runner({ machine_id: 'm-1' }))).rejects.toBeInstanceOf(DuplicateKeyError);
    expect(await t.repo.findByMachineId(ORG_A, 'm-1')).toEqual(created);
  });

  it('lists runners stuck in a state across organizations (reconciler)', async () => {
    const old = new Date('2030-01-01T00:00:00Z');
    const a = await t.repo.create(ORG_A, runner(), old);
    const b = await t.repo.create(ORG_B, runner(), old);
    await t.repo.create(ORG_B, runner(), new Date('2030-01-01T01:00:00Z'));
    const stuck = await t.repo.listInStateAcrossOrgs(['provisioning'], new Date('2030-01-01T00:30:00Z'));
    expect(stuck.map((r) => r._id).sort()).toEqual([a._id, b._id].sort());
  });

  it('isolates tenants', async () => {
    const created = await t.repo.create(ORG_A, runner({ machine_id: 'm-1' }));
    await expectTenantIsolation(t.repo, created, { state: 'terminated' });
    expect(await t.repo.updateVersioned(ORG_B, created._id, 1, { state: 'terminated' })).toBeNull();
    expect(await t.repo.findByMachineId(ORG_B, 'm-1')).toBeNull();
    expect((await t.repo.listRunners(ORG_B)).total).toBe(0);
    expect(await t.repo.findById(ORG_A, created._id)).toEqual(created);
  });
});
