import { asOrgId } from '../shared/tenancy';
import { storeTargets } from '../testing/stores';
import { useRepository } from '../testing/jest-helpers';
import { normalizePlan, subscriptionIsActive } from './organization.entity';
import { OrganizationRepository } from './organization.repository';

describe('organization plans', () => {
  it('normalizes tiers and the pro/team aliases', () => {
    expect(normalizePlan('growth')).toBe('growth');
    expect(normalizePlan(' Pro ')).toBe('starter');
    expect(normalizePlan('team')).toBe('growth');
    expect(normalizePlan('platinum')).toBeNull();
  });

  it('lets only active and trialing subscriptions through', () => {
    expect(subscriptionIsActive('active')).toBe(true);
    expect(subscriptionIsActive('trialing')).toBe(true);
    expect(subscriptionIsActive('past_due')).toBe(false);
    expect(subscriptionIsActive('canceled')).toBe(false);
  });
});

describe.each(storeTargets(process.env.MONGODB_URI))('OrganizationRepository ($name)', (target) => {
  const t = useRepository(target, (store) => new OrganizationRepository(store));

  it('creates an organization, active by default, and finds it by id', async () => {
    const org = await t.repo.create({ name: 'Acme', plan: 'growth' });
    expect(org).toMatchObject({ name: 'Acme', plan: 'growth', subscription_status: 'active' });
    expect(org._id).toMatch(/^org_/);
    expect(await t.repo.findById(asOrgId(org._id))).toEqual(org);
    expect(await t.repo.countAll()).toBe(1);
  });

  it('updates the plan and subscription of that organization only', async () => {
    const a = await t.repo.create({ name: 'A', plan: 'free' });
    const b = await t.repo.create({ name: 'B', plan: 'free' });
    const updated = await t.repo.update(asOrgId(a._id), { plan: 'enterprise', subscription_status: 'past_due', name: undefined });
    expect(updated).toMatchObject({ name: 'A', plan: 'enterprise', subscription_status: 'past_due' });
    expect(await t.repo.findById(asOrgId(b._id))).toEqual(b);
    expect(await t.repo.update(asOrgId('org_missing'), { plan: 'growth' })).toBeNull();
  });

  it('deletes one organization', async () => {
    const a = await t.repo.create({ name: 'A', plan: 'free' });
    const b = await t.repo.create({ name: 'B', plan: 'free' });
    expect(await t.repo.delete(asOrgId(a._id))).toBe(true);
    expect(await t.repo.delete(asOrgId(a._id))).toBe(false);
    expect(await t.repo.findById(asOrgId(b._id))).toEqual(b);
  });
});
