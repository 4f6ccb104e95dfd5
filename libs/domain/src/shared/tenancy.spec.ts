import { UserRepository } from '../users/user.repository';
import { newId, randomAlphanumeric } from './ids';
import { asOrgId } from './tenancy';

describe('asOrgId', () => {
  it('brands a non-empty id and refuses an empty one', () => {
    expect(asOrgId('org_1')).toBe('org_1');
    expect(() => asOrgId('')).toThrow(/non-empty/);
    expect(() => asOrgId('   ')).toThrow(/non-empty/);
  });

  it('is required by tenant-scoped methods (checked by the compiler)', () => {
    const typeCheckOnly = (repo: UserRepository) => {
      // @ts-expect-error a plain string is not an OrgId: the tenant must go through asOrgId
      void repo.findById('org_1', 'usr_1');
      // @ts-expect-error the organization argument cannot be left out
      void repo.list();
      void repo.findById(asOrgId('org_1'), 'usr_1');
    };
    expect(typeof typeCheckOnly).toBe('function');
  });
});

describe('ids', () => {
  it('prefixes ids and makes them sort by creation', () => {
    const ids = Array.from({ length: 50 }, () => newId('approval'));
    for (const id of ids) expect(id).toMatch(/^apr_[0-9A-Za-z]{24}$/);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('draws random alphanumerics of the requested length', () => {
    expect(randomAlphanumeric(64)).toMatch(/^[A-Za-z0-9]{64}$/);
  });
});
