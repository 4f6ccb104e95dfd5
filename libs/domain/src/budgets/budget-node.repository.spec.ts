import { DuplicateKeyError } from '../store/types';
import { storeTargets } from '../testing/stores';
import { expectTenantIsolation, ORG_A, ORG_B, present, useRepository } from '../testing/jest-helpers';
import { BudgetNodeRepository } from './budget-node.repository';

describe.each(storeTargets(process.env.MONGODB_URI))('BudgetNodeRepository ($name)', (target) => {
  const t = useRepository(target, (store) => new BudgetNodeRepository(store));

  const tree = async () => {
    const org = await t.repo.create(ORG_A, { name: 'Acme', level: 'org', budget_limit: 100, reset_period: 'monthly' });
    const team = await t.repo.create(ORG_A, {
      name: 'ML',
      level: 'team',
      budget_limit: 50,
      reset_period: 'weekly',
      parent_id: org._id,
      team_id: 'team_ml',
    });
    const key = await t.repo.create(ORG_A, {
      name: 'ci key',
      level: 'key',
      budget_limit: 5,
      reset_period: 'daily',
      parent_id: team._id,
      team_id: 'team_ml',
      key_id: 'key_ci',
      alert_thresholds: [80],
    });
    return { org, team, key };
  };

  it('creates nodes of the three levels', async () => {
    const { org, key } = await tree();
    expect(org).toMatchObject({ level: 'org', team_id: null, key_id: null, parent_id: null, alert_thresholds: [] });
    expect(org._id).toMatch(/^node_/);
    expect(key).toMatchObject({ level: 'key', key_id: 'key_ci', team_id: 'team_ml', alert_thresholds: [80] });
  });

  it('finds the nodes a request is charged to, org first', async () => {
    const { org, team, key } = await tree();
    expect((await t.repo.findForRequest(ORG_A, { teamId: 'team_ml', keyId: 'key_ci' })).map((n) => n._id)).toEqual([
      org._id,
      team._id,
      key._id,
    ]);
    expect((await t.repo.findForRequest(ORG_A, { keyId: 'key_other' })).map((n) => n._id)).toEqual([org._id]);
    expect((await t.repo.listChildren(ORG_A, org._id)).map((n) => n._id)).toEqual([team._id]);
    expect(await t.repo.listAll(ORG_A)).toHaveLength(3);
  });

  it('moves the key nodes of a rotated key to its replacement, in the organization only', async () => {
    const { key } = await tree();
    const theirs = await t.repo.create(ORG_B, { name: 'B key', level: 'key', budget_limit: 1, reset_period: 'daily', key_id: 'key_ci' });
    expect(await t.repo.moveKeyNodes(ORG_A, 'key_ci', 'key_ci2')).toBe(1);
    expect(await t.repo.findById(ORG_A, key._id)).toMatchObject({ key_id: 'key_ci2', budget_limit: 5, parent_id: key.parent_id });
    expect((await t.repo.findForRequest(ORG_A, { keyId: 'key_ci2' })).map((n) => n._id)).toContain(key._id);
    expect(await t.repo.findById(ORG_B, theirs._id)).toMatchObject({ key_id: 'key_ci' });
    expect(await t.repo.moveKeyNodes(ORG_A, 'key_ci', 'key_ci3')).toBe(0);
  });

  it('allows one node per scope', async () => {
    await tree();
    const error = await t.repo
      .create(ORG_A, { name: 'again', level: 'team', budget_limit: 1, reset_period: 'daily', team_id: 'team_ml' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DuplicateKeyError);
    await expect(t.repo.create(ORG_B, { name: 'B', level: 'org', budget_limit: 1, reset_period: 'daily' })).resolves.toMatchObject({
      org_id: ORG_B,
    });
  });

  it('isolates tenants', async () => {
    const { org } = await tree();
    const fresh = present(await t.repo.findById(ORG_A, org._id));
    await expectTenantIsolation(t.repo, fresh, { budget_limit: 1_000_000 });
    expect(await t.repo.findForRequest(ORG_B, { teamId: 'team_ml', keyId: 'key_ci' })).toEqual([]);
    expect(await t.repo.listChildren(ORG_B, org._id)).toEqual([]);
    expect(await t.repo.listAll(ORG_B)).toEqual([]);
  });
});
