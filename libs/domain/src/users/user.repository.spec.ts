import { DuplicateKeyError } from '../store/types';
import { storeTargets } from '../testing/stores';
import { expectTenantIsolation, ORG_A, ORG_B, useRepository } from '../testing/jest-helpers';
import { NewUser, UserRepository } from './user.repository';

const user = (email: string, extra: Partial<NewUser> = {}): NewUser => ({
  email,
  role: 'Member',
  password_hash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA',
  ...extra,
});

describe.each(storeTargets(process.env.MONGODB_URI))('UserRepository ($name)', (target) => {
  const t = useRepository(target, (store) => new UserRepository(store));

  it('creates a user with a lower-cased e-mail', async () => {
    const created = await t.repo.create(ORG_A, user('  Ada@Example.COM ', { role: 'Owner', name: 'Ada' }));
    expect(created).toMatchObject({ org_id: ORG_A, email: 'ada@example.com', role: 'Owner', name: 'Ada', last_login_at: null });
    expect(created._id).toMatch(/^usr_/);
  });

  it('keeps e-mails unique across all organizations', async () => {
    await t.repo.create(ORG_A, user('ada@example.com'));
    const error = await t.repo.create(ORG_B, user('ADA@example.com')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DuplicateKeyError);
    expect(error).toMatchObject({ index: 'email_unique', fields: ['email'] });
  });

  it('finds a user by e-mail for login, across organizations', async () => {
    const created = await t.repo.create(ORG_B, user('bob@example.com'));
    expect(await t.repo.findByEmailForLogin('Bob@Example.com')).toEqual(created);
    expect(await t.repo.findByEmailForLogin('nobody@example.com')).toBeNull();
  });

  it('tells whether any user exists, counts owners and records logins', async () => {
    expect(await t.repo.anyUserExists()).toBe(false);
    const owner = await t.repo.create(ORG_A, user('o@example.com', { role: 'Owner' }));
    await t.repo.create(ORG_A, user('m@example.com'));
    expect(await t.repo.anyUserExists()).toBe(true);
    expect(await t.repo.countOwners(ORG_A)).toBe(1);
    const at = new Date('2030-01-01T00:00:00Z');
    await t.repo.recordLogin(ORG_A, owner._id, at);
    expect((await t.repo.findById(ORG_A, owner._id))?.last_login_at).toEqual(at);
  });

  it('updates a member, lower-casing a new e-mail', async () => {
    const created = await t.repo.create(ORG_A, user('ada@example.com'));
    const updated = await t.repo.updateById(ORG_A, created._id, { email: 'Ada.L@Example.com', role: 'Admin' });
    expect(updated).toMatchObject({ email: 'ada.l@example.com', role: 'Admin' });
    expect(await t.repo.findByEmailForLogin('ada.l@example.com')).toMatchObject({ _id: created._id });
  });

  it('lists the members of an organization oldest first, paged', async () => {
    for (let i = 0; i < 3; i += 1) await t.repo.create(ORG_A, user(`u${i}@example.com`), new Date(Date.UTC(2025, 0, i + 1)));
    await t.repo.create(ORG_B, user('other@example.com'));
    const page = await t.repo.list(ORG_A, { limit: 2 });
    expect(page).toMatchObject({ total: 3, offset: 0, limit: 2 });
    expect(page.items.map((u) => u.email)).toEqual(['u0@example.com', 'u1@example.com']);
  });

  it('isolates tenants', async () => {
    const created = await t.repo.create(ORG_A, user('ada@example.com', { role: 'Owner' }));
    await expectTenantIsolation(t.repo, created, { role: 'Member' });
    expect(await t.repo.findByEmail(ORG_B, 'ada@example.com')).toBeNull();
    expect(await t.repo.findByEmail(ORG_A, 'ada@example.com')).toEqual(created);
    expect(await t.repo.countOwners(ORG_B)).toBe(0);
    await t.repo.recordLogin(ORG_B, created._id, new Date());
    expect(await t.repo.findById(ORG_A, created._id)).toEqual(created);
  });
});
