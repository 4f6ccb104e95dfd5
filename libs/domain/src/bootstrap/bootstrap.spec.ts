import { verifyPassword } from '../crypto/password';
import { createRepositories, Repositories } from '../repositories';
import { present } from '../testing/jest-helpers';
import { storeTargets, StoreUnderTest } from '../testing/stores';
import { bootstrapFirstOrganization, BootstrapConfig } from './bootstrap';

const CONFIG: BootstrapConfig = {
  BOOTSTRAP_ORG_NAME: 'Default Organization',
  BOOTSTRAP_ADMIN_EMAIL: 'Admin@Example.com',
  BOOTSTRAP_ORG_PLAN: 'team',
};

describe.each(storeTargets(process.env.MONGODB_URI))('bootstrapFirstOrganization ($name)', (target) => {
  let ctx: StoreUnderTest;
  let repos: Repositories;

  beforeEach(async () => {
    ctx = await target.open();
    repos = createRepositories(ctx.store);
    await ctx.store.ready();
  });
  afterEach(() => ctx.cleanup());

  it('creates the organization (alias plan normalized, active) and its Owner with a generated password', async () => {
    const result = await bootstrapFirstOrganization(repos, CONFIG);
    expect(result).toMatchObject({ created: true, email: 'admin@example.com' });
    expect(result.generatedPassword).toMatch(/^[A-Za-z0-9]{24}$/);
    const org = await repos.organizations.findById(present(result.orgId));
    expect(org).toMatchObject({ name: 'Default Organization', plan: 'growth', subscription_status: 'active' });
    const owner = await repos.users.findByEmailForLogin('admin@example.com');
    expect(owner).toMatchObject({ org_id: result.orgId, role: 'Owner' });
    expect(await verifyPassword(present(owner).password_hash, present(result.generatedPassword))).toBe(true);
  });

  it('uses the configured password and prints none; pro means starter', async () => {
    const result = await bootstrapFirstOrganization(repos, { ...CONFIG, BOOTSTRAP_ADMIN_PASSWORD: 'a-long-enough-password', BOOTSTRAP_ORG_PLAN: 'pro' });
    expect(result.generatedPassword).toBeUndefined();
    expect((await repos.organizations.findById(present(result.orgId)))?.plan).toBe('starter');
    const owner = await repos.users.findByEmailForLogin('admin@example.com');
    expect(await verifyPassword(present(owner).password_hash, 'a-long-enough-password')).toBe(true);
  });

  it('does nothing on the next start', async () => {
    const first = await bootstrapFirstOrganization(repos, CONFIG);
    const second = await bootstrapFirstOrganization(repos, CONFIG);
    expect(second).toEqual({ created: false, orgId: first.orgId, email: 'admin@example.com' });
    expect(await repos.organizations.countAll()).toBe(1);
  });

  it('does nothing when users exist, even with another admin e-mail', async () => {
    await bootstrapFirstOrganization(repos, CONFIG);
    const other = await bootstrapFirstOrganization(repos, { ...CONFIG, BOOTSTRAP_ADMIN_EMAIL: 'new@example.com' });
    expect(other).toEqual({ created: false, orgId: null, email: 'new@example.com' });
    expect(await repos.organizations.countAll()).toBe(1);
  });

  it('refuses an unknown plan', async () => {
    await expect(bootstrapFirstOrganization(repos, { ...CONFIG, BOOTSTRAP_ORG_PLAN: 'platinum' })).rejects.toThrow(/BOOTSTRAP_ORG_PLAN/);
    expect(await repos.organizations.countAll()).toBe(0);
  });
});
