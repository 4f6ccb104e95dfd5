import { defineCollection } from '../store/types';

export const ORG_ROLES = ['Owner', 'Admin', 'Manager', 'Operator', 'Member'] as const;
export type OrgRole = (typeof ORG_ROLES)[number];

export interface UserEntity {
  /** `usr_...` */
  _id: string;
  org_id: string;
  /** Lower-cased; unique across all organizations (login is by e-mail). */
  email: string;
  name: string | null;
  role: OrgRole;
  /** Argon2id PHC string. */
  password_hash: string;
  created_at: Date;
  updated_at: Date;
  last_login_at: Date | null;
}

export const USERS = defineCollection<UserEntity>('users', [
  { fields: { email: 1 }, unique: true, name: 'email_unique', comment: 'login: the user with an e-mail (findByEmailForLogin)' },
  { fields: { org_id: 1, created_at: 1 }, comment: 'members of an organization, oldest first' },
]);

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}
