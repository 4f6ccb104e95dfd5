import { DuplicateKeyError } from '../store/types';
import { storeTargets } from '../testing/stores';
import { expectTenantIsolation, ORG_A, ORG_B, useRepository } from '../testing/jest-helpers';
import { ModelAliasRepository } from './model-alias.repository';

describe.each(storeTargets(process.env.MONGODB_URI))('ModelAliasRepository ($name)', (target) => {
  const t = useRepository(target, (store) => new ModelAliasRepository(store));

  it('creates an alias and resolves it', async () => {
    const created = await t.repo.create(ORG_A, { alias: 'fast', model: 'groq/llama-3.3-70b' });
    expect(created).toMatchObject({ alias: 'fast', model: 'groq/llama-3.3-70b', provider: null, description: null });
    expect(created._id).toMatch(/^als_/);
    expect(await t.repo.findByAlias(ORG_A, 'fast')).toEqual(created);
    expect(await t.repo.findByAlias(ORG_A, 'slow')).toBeNull();
  });

  it('keeps alias names unique per organization', async () => {
    await t.repo.create(ORG_A, { alias: 'fast', model: 'a' });
    await t.repo.create(ORG_B, { alias: 'fast', model: 'b' });
    await expect(t.repo.create(ORG_A, { alias: 'fast', model: 'c' })).rejects.toBeInstanceOf(DuplicateKeyError);
  });

  it('lists aliases by name and updates one', async () => {
    const zed = await t.repo.create(ORG_A, { alias: 'zed', model: 'a' });
    await t.repo.create(ORG_A, { alias: 'alpha', model: 'b' });
    expect((await t.repo.listAll(ORG_A)).map((a) => a.alias)).toEqual(['alpha', 'zed']);
    expect((await t.repo.list(ORG_A)).items.map((a) => a.alias)).toEqual(['alpha', 'zed']);
    const updated = await t.repo.updateById(ORG_A, zed._id, { model: 'c', description: 'changed' });
    expect(updated).toMatchObject({ alias: 'zed', model: 'c', description: 'changed' });
    expect(updated?.updated_at.getTime()).toBeGreaterThanOrEqual(zed.updated_at.getTime());
  });

  it('isolates tenants', async () => {
    const created = await t.repo.create(ORG_A, { alias: 'fast', model: 'a' });
    await expectTenantIsolation(t.repo, created, { model: 'evil' });
    expect(await t.repo.findByAlias(ORG_B, 'fast')).toBeNull();
    expect(await t.repo.listAll(ORG_B)).toEqual([]);
  });
});
