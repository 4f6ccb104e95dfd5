declare const orgIdBrand: unique symbol;

/**
 * An organization id that has been through `asOrgId`. Every tenant-scoped repository method takes
 * one as its first argument, so a query that forgets the tenant does not compile.
 */
export type OrgId = string & { readonly [orgIdBrand]: true };

/** Marks a string as an organization id (from a key record, a JWT claim, a path parameter...). */
export function asOrgId(id: string): OrgId {
  if (typeof id !== 'string' || id.trim().length === 0) throw new Error('An organization id must be a non-empty string');
  return id as OrgId;
}

/** Every tenant-scoped document carries its organization. */
export interface TenantDocument {
  _id: string;
  org_id: string;
}
