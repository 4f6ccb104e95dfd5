import type { PlanTier } from '../organizations/organization.entity';
import { newId } from '../shared/ids';
import type { OrgId } from '../shared/tenancy';
import { Collection, DocumentStore, DuplicateKeyError, Update } from '../store/types';
import { POLICIES, POLICY_FIELDS, PolicyEntity, PolicyOverrides } from './policy.entity';

function definedOverrides(overrides: PolicyOverrides): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of POLICY_FIELDS) if (overrides[field] !== undefined) out[field] = overrides[field];
  return out;
}

/** One policy per organization, addressed by the organization id alone. */
export class PolicyRepository {
  private readonly collection: Collection<PolicyEntity>;

  constructor(store: DocumentStore) {
    this.collection = store.collection(POLICIES);
  }

  get(orgId: OrgId): Promise<PolicyEntity | null> {
    return this.collection.findOne({ org_id: orgId });
  }

  /** Create or replace: the given overrides become the whole policy (absent fields revert to tier defaults). */
  replace(orgId: OrgId, overrides: PolicyOverrides, preset: PlanTier | null = null): Promise<PolicyEntity> {
    const set = definedOverrides(overrides);
    const unset = Object.fromEntries(POLICY_FIELDS.filter((f) => !(f in set)).map((f) => [f, ''] as const));
    return this.upsert(orgId, { $set: { ...set, preset }, ...(Object.keys(unset).length ? { $unset: unset } : {}) });
  }

  /** Merge: only the given overrides change (creating the policy if needed). */
  patch(orgId: OrgId, overrides: PolicyOverrides): Promise<PolicyEntity> {
    return this.upsert(orgId, { $set: definedOverrides(overrides) });
  }

  /** Removes overrides so those fields revert to tier defaults. */
  clearFields(orgId: OrgId, fields: (keyof PolicyOverrides)[]): Promise<PolicyEntity> {
    return this.upsert(orgId, { $unset: Object.fromEntries(fields.map((f) => [f, ''] as const)) });
  }

  /** Deleting a policy reverts the organization to its tier defaults. */
  async delete(orgId: OrgId): Promise<boolean> {
    return (await this.collection.deleteOne({ org_id: orgId })) === 1;
  }

  private async upsert(orgId: OrgId, update: Update<PolicyEntity>, attempt = 1): Promise<PolicyEntity> {
    const now = new Date();
    try {
      const result = await this.collection.findOneAndUpdate(
        { org_id: orgId },
        {
          ...update,
          $set: { ...update.$set, updated_at: now },
          $setOnInsert: { _id: newId('policy'), created_at: now, ...(update.$set && 'preset' in update.$set ? {} : { preset: null }) },
        },
        { upsert: true, returnDocument: 'after' },
      );
      return result as PolicyEntity;
    } catch (error) {
      // Two first writes raced on the org's unique index: the loser now finds the policy and updates it.
      if (error instanceof DuplicateKeyError && attempt === 1) return this.upsert(orgId, update, 2);
      throw error;
    }
  }
}
