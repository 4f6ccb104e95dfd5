import { newId } from '../shared/ids';
import type { OrgId } from '../shared/tenancy';
import type { Collection, DocumentStore } from '../store/types';
import { ORGANIZATIONS, OrganizationEntity, PlanTier, SubscriptionStatus } from './organization.entity';

export interface NewOrganization {
  name: string;
  plan: PlanTier;
  subscription_status?: SubscriptionStatus;
}

export type OrganizationPatch = Partial<Pick<OrganizationEntity, 'name' | 'plan' | 'subscription_status'>>;

/** Organizations are the tenants themselves: every read is by the organization's own id. */
export class OrganizationRepository {
  private readonly collection: Collection<OrganizationEntity>;

  constructor(store: DocumentStore) {
    this.collection = store.collection(ORGANIZATIONS);
  }

  async create(input: NewOrganization, now = new Date()): Promise<OrganizationEntity> {
    return this.collection.insertOne({
      _id: newId('organization'),
      name: input.name,
      plan: input.plan,
      subscription_status: input.subscription_status ?? 'active',
      created_at: now,
      updated_at: now,
    });
  }

  findById(orgId: OrgId): Promise<OrganizationEntity | null> {
    return this.collection.findOne({ _id: orgId });
  }

  update(orgId: OrgId, patch: OrganizationPatch): Promise<OrganizationEntity | null> {
    const fields = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
    return this.collection.findOneAndUpdate({ _id: orgId }, { $set: { ...fields, updated_at: new Date() } });
  }

  async delete(orgId: OrgId): Promise<boolean> {
    return (await this.collection.deleteOne({ _id: orgId })) === 1;
  }

  /** How many organizations exist (not tenant data; used by bootstrap and operators). */
  countAll(): Promise<number> {
    return this.collection.count({});
  }
}
