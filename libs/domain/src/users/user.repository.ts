import { newId } from '../shared/ids';
import { Patch, TenantRepository } from '../shared/tenant-repository';
import type { OrgId } from '../shared/tenancy';
import type { DocumentStore } from '../store/types';
import { normalizeEmail, OrgRole, UserEntity, USERS } from './user.entity';

export interface NewUser {
  email: string;
  role: OrgRole;
  password_hash: string;
  name?: string | null;
}

export class UserRepository extends TenantRepository<UserEntity> {
  constructor(store: DocumentStore) {
    super(store, USERS);
    this.defaultSort = { created_at: 1, _id: 1 };
  }

  /** Throws DuplicateKeyError (index `email_unique`) when the e-mail is taken in any organization. */
  create(orgId: OrgId, input: NewUser, now = new Date()): Promise<UserEntity> {
    return this.insertIn(orgId, {
      _id: newId('user'),
      email: normalizeEmail(input.email),
      name: input.name ?? null,
      role: input.role,
      password_hash: input.password_hash,
      created_at: now,
      updated_at: now,
      last_login_at: null,
    });
  }

  /** Partial update; a new e-mail is lower-cased like on create. */
  override updateById(orgId: OrgId, id: string, patch: Patch<UserEntity>): Promise<UserEntity | null> {
    return super.updateById(orgId, id, patch.email === undefined ? patch : { ...patch, email: normalizeEmail(patch.email) });
  }

  /** Cross-tenant by design: login knows only the e-mail; the user record names its organization. */
  findByEmailForLogin(email: string): Promise<UserEntity | null> {
    return this.acrossTenants.findOne({ email: normalizeEmail(email) });
  }

  findByEmail(orgId: OrgId, email: string): Promise<UserEntity | null> {
    return this.findOneIn(orgId, { email: normalizeEmail(email) });
  }

  /** Whether any user exists in any organization (bootstrap runs only when none does). */
  async anyUserExists(): Promise<boolean> {
    return (await this.acrossTenants.findOne({}, { projection: { _id: 1 } })) !== null;
  }

  async recordLogin(orgId: OrgId, id: string, at = new Date()): Promise<void> {
    await this.updateOneIn(orgId, { _id: id }, { $set: { last_login_at: at } });
  }

  countOwners(orgId: OrgId): Promise<number> {
    return this.count(orgId, { role: 'Owner' });
  }
}
