import { asOrgId } from './shared/tenancy';
import { storeTargets } from './testing/stores';
import { createRepositories } from './repositories';

describe.each(storeTargets(process.env.MONGODB_URI))('createRepositories ($name)', (target) => {
  it('opens every collection with its indexes, over one store, and keeps data across a reopen', async () => {
    const ctx = await target.open();
    try {
      const repos = createRepositories(ctx.store);
      await expect(ctx.store.ready()).resolves.toBeUndefined();
      expect(Object.keys(repos)).toHaveLength(24);
      const org = await repos.organizations.create({ name: 'Acme', plan: 'free' });
      const orgId = asOrgId(org._id);
      await repos.policies.patch(orgId, { rpm_limit: 7 });
      await repos.modelAliases.create(orgId, { alias: 'fast', model: 'gpt-4o-mini' });

      const reopened = createRepositories(await ctx.reopen());
      await reopened.store.ready();
      expect(await reopened.organizations.findById(orgId)).toEqual(org);
      expect((await reopened.policies.get(orgId))?.rpm_limit).toBe(7);
      expect((await reopened.modelAliases.findByAlias(orgId, 'fast'))?.model).toBe('gpt-4o-mini');
    } finally {
      await ctx.cleanup();
    }
  });
});
