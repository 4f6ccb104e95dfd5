import { newId } from '../shared/ids';
import { TenantRepository } from '../shared/tenant-repository';
import type { OrgId } from '../shared/tenancy';
import { DocumentStore, DuplicateKeyError } from '../store/types';
import { IDEMPOTENCY_RECORDS, IDEMPOTENCY_TTL_MS, IdempotencyRecordEntity, StoredResponse } from './idempotency-record.entity';

/** `claimed`: this request owns the key. Otherwise the existing record tells replay, conflict or in-flight. */
export type IdempotencyClaim = { claimed: true; record: IdempotencyRecordEntity } | { claimed: false; record: IdempotencyRecordEntity };

export class IdempotencyRecordRepository extends TenantRepository<IdempotencyRecordEntity> {
  constructor(store: DocumentStore) {
    super(store, IDEMPOTENCY_RECORDS);
    this.stampsUpdatedAt = false;
  }

  /** Atomically claims a key for a request, or returns the record that already holds it. */
  async claim(orgId: OrgId, key: string, bodyHash: string, now = new Date(), ttlMs = IDEMPOTENCY_TTL_MS): Promise<IdempotencyClaim> {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      try {
        const record = await this.insertIn(orgId, {
          _id: newId('idempotency'),
          key,
          body_hash: bodyHash,
          state: 'in_progress',
          response: null,
          created_at: now,
          expires_at: new Date(now.getTime() + ttlMs),
        });
        return { claimed: true, record };
      } catch (error) {
        if (!(error instanceof DuplicateKeyError)) throw error;
        const existing = await this.findByKey(orgId, key);
        // Gone between the insert and the read (released or expired): try again.
        if (existing) return { claimed: false, record: existing };
      }
    }
    throw new Error(`Could not claim idempotency key ${key}`);
  }

  findByKey(orgId: OrgId, key: string): Promise<IdempotencyRecordEntity | null> {
    return this.findOneIn(orgId, { key });
  }

  /** Stores the response of a claimed key, for replays. */
  complete(orgId: OrgId, key: string, response: StoredResponse): Promise<IdempotencyRecordEntity | null> {
    return this.findOneAndUpdateIn(orgId, { key, state: 'in_progress' }, { $set: { state: 'completed', response } });
  }

  /** Gives up a claim (the request failed or was streamed), so the key can be used again. */
  async release(orgId: OrgId, key: string): Promise<boolean> {
    return (await this.deleteManyIn(orgId, { key, state: 'in_progress' })) > 0;
  }
}
