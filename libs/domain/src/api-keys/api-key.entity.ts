import { defineCollection } from '../store/types';

export type ApiKeyStatus = 'active' | 'revoked';

export interface ApiKeyEntity {
  /** `key_...` */
  _id: string;
  org_id: string;
  /** The key's label: unique per organization among current (active, not rotated) keys. */
  name: string;
  /** SHA-256 hex of the plaintext key; the plaintext is never stored. */
  key_hash: string;
  /** e.g. `svc_sk_AbC1`, for listings. */
  key_prefix: string;
  last_four: string;
  scopes: string[];
  /** IPs or CIDR ranges; empty = any address. */
  ip_allowlist: string[];
  status: ApiKeyStatus;
  /** Set when the key was rotated: the id of its replacement. */
  replaced_by: string | null;
  /** A rotated key keeps working until then (with deprecation headers). */
  grace_until: Date | null;
  /**
   * The key stops authenticating at this time (401 GW_AUTH_002); null = never. Absent on keys
   * stored before expiry existed, which read as null.
   */
  expires_at?: Date | null;
  team_id: string | null;
  created_by: string | null;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

export const API_KEYS = defineCollection<ApiKeyEntity>('api_keys', [
  { fields: { key_hash: 1 }, unique: true, name: 'key_hash_unique', comment: 'findByHash: authenticate every gateway request' },
  {
    fields: { org_id: 1, name: 1 },
    unique: true,
    name: 'current_name_unique',
    partialFilterExpression: { status: 'active', replaced_by: { $type: 'null' } },
    comment: 'findByName and the 409 resource_already_exists: one current key per name per org',
  },
  { fields: { org_id: 1, created_at: -1 }, comment: 'list the keys of an organization, newest first' },
]);
