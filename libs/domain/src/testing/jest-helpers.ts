/**
 * Jest-only helpers of the domain contract tests (they use jest globals, so they are not exported
 * from the library's index).
 */
import type { Patch, TenantRepository } from '../shared/tenant-repository';
import { asOrgId, OrgId, TenantDocument } from '../shared/tenancy';
import type { DocumentStore } from '../store/types';
import type { StoreTarget, StoreUnderTest } from './stores';

export const ORG_A: OrgId = asOrgId('org_tenant_a');
export const ORG_B: OrgId = asOrgId('org_tenant_b');

export interface RepositoryFixture<R> {
  repo: R;
  ctx: StoreUnderTest;
}

/** Opens a fresh store of the target before each test (closed and removed after) with a repository over it. */
export function useRepository<R>(target: StoreTarget, create: (store: DocumentStore) => R): RepositoryFixture<R> {
  const fixture = {} as RepositoryFixture<R>;
  beforeEach(async () => {
    fixture.ctx = await target.open();
    fixture.repo = create(fixture.ctx.store);
    await fixture.ctx.store.ready();
  });
  afterEach(() => fixture.ctx.cleanup());
  return fixture;
}

/**
 * The generic half of a repository's tenant-isolation test: with a record of org A, org B can
 * neither find, list, count, update nor delete it, and the record is unchanged. Each repository
 * spec adds its own methods on top.
 */
export async function expectTenantIsolation<T extends TenantDocument>(
  repository: TenantRepository<T>,
  recordOfA: T,
  patch: Patch<T>,
): Promise<void> {
  expect(recordOfA.org_id).toBe(ORG_A);
  expect(await repository.findById(ORG_B, recordOfA._id)).toBeNull();
  expect(await repository.list(ORG_B)).toMatchObject({ items: [], total: 0 });
  expect(await repository.count(ORG_B)).toBe(0);
  expect(await repository.updateById(ORG_B, recordOfA._id, patch)).toBeNull();
  expect(await repository.deleteById(ORG_B, recordOfA._id)).toBe(false);
  expect(await repository.findById(ORG_A, recordOfA._id)).toEqual(recordOfA);
  expect((await repository.list(ORG_A)).items.map((r) => r._id)).toContain(recordOfA._id);
}

/** The value, after asserting it is there (instead of a non-null assertion). */
export function present<T>(value: T | null | undefined): T {
  expect(value).toBeDefined();
  expect(value).not.toBeNull();
  return value as T;
}
