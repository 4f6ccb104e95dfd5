import { storeTargets } from '../testing/stores';
import { expectTenantIsolation, ORG_A, ORG_B, useRepository } from '../testing/jest-helpers';
import { DiscoveredModelRepository } from './discovered-model.repository';

const TARGET = { id: 'tgt_1', provider_id: 'local' };
const models = (...ids: string[]) => ids.map((model_id) => ({ model_id, owned_by: 'me' }));

describe.each(storeTargets(process.env.MONGODB_URI))('DiscoveredModelRepository ($name)', (target) => {
  const t = useRepository(target, (store) => new DiscoveredModelRepository(store));

  it('replaces the catalog of a target: adds, refreshes and removes', async () => {
    const first = new Date('2030-01-01T00:00:00Z');
    expect(await t.repo.replaceForTarget(ORG_A, TARGET, models('llama-3', 'qwen-2', 'qwen-2'), first)).toEqual({
      added: 2,
      removed: 0,
      total: 2,
    });
    const second = new Date('2030-01-02T00:00:00Z');
    expect(await t.repo.replaceForTarget(ORG_A, TARGET, models('llama-3', 'mistral-7b'), second)).toEqual({
      added: 1,
      removed: 1,
      total: 2,
    });
    const listed = await t.repo.listByTarget(ORG_A, TARGET.id);
    expect(listed.map((m) => m.model_id)).toEqual(['llama-3', 'mistral-7b']);
    expect(listed[0]).toMatchObject({ provider_id: 'local', owned_by: 'me', discovered_at: first, last_seen_at: second });
    expect(listed[0]._id).toMatch(/^mdl_/);
  });

  it('pages the catalog with a cursor, optionally by provider', async () => {
    await t.repo.replaceForTarget(ORG_A, TARGET, models('a', 'b', 'c'));
    await t.repo.replaceForTarget(ORG_A, { id: 'tgt_2', provider_id: 'other' }, models('d'));
    const page1 = await t.repo.catalog(ORG_A, { limit: 2 });
    expect(page1.items).toHaveLength(2);
    const page2 = await t.repo.catalog(ORG_A, { limit: 2, cursor: page1.next_cursor });
    expect(page2.next_cursor).toBeNull();
    expect([...page1.items, ...page2.items].map((m) => m.model_id).sort()).toEqual(['a', 'b', 'c', 'd']);
    expect((await t.repo.catalog(ORG_A, { provider_id: 'other' })).items.map((m) => m.model_id)).toEqual(['d']);
    expect(await t.repo.deleteByTarget(ORG_A, TARGET.id)).toBe(3);
  });

  it('isolates tenants', async () => {
    await t.repo.replaceForTarget(ORG_A, TARGET, models('llama-3'));
    const [mine] = await t.repo.listByTarget(ORG_A, TARGET.id);
    await expectTenantIsolation(t.repo, mine, { owned_by: 'evil' });
    expect(await t.repo.listByTarget(ORG_B, TARGET.id)).toEqual([]);
    expect((await t.repo.catalog(ORG_B)).items).toEqual([]);
    expect(await t.repo.deleteByTarget(ORG_B, TARGET.id)).toBe(0);
    // Org B's replacement of "the same" target touches only org B's catalog.
    await t.repo.replaceForTarget(ORG_B, TARGET, models('other'));
    expect(await t.repo.listByTarget(ORG_A, TARGET.id)).toEqual([mine]);
  });
});
