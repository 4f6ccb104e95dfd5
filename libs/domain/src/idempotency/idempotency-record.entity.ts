import { defineCollection } from '../store/types';

export interface StoredResponse {
  status_code: number;
  headers: Record<string, string>;
  body: string;
}

/** An `Idempotency-Key` of an organization (DECISIONS.md "Idempotency-Key"), kept 24 h. */
export interface IdempotencyRecordEntity {
  /** `idem_...` */
  _id: string;
  org_id: string;
  key: string;
  /** SHA-256 of the request body: the same key with another body is a 409. */
  body_hash: string;
  state: 'in_progress' | 'completed';
  response: StoredResponse | null;
  created_at: Date;
  expires_at: Date;
}

export const IDEMPOTENCY_TTL_MS = 24 * 3600_000;

export const IDEMPOTENCY_RECORDS = defineCollection<IdempotencyRecordEntity>('idempotency_records', [
  { fields: { expires_at: 1 }, expireAfterSeconds: 0, comment: 'records live 24 h' },
  { fields: { org_id: 1, key: 1 }, unique: true, name: 'org_key_unique', comment: 'claim/replay: one record per key per org' },
]);
