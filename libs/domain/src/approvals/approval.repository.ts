import { newId } from '../shared/ids';
import { Page, PageRequest, TenantRepository } from '../shared/tenant-repository';
import type { OrgId } from '../shared/tenancy';
import type { DocumentStore } from '../store/types';
import { APPROVAL_STATUSES, APPROVALS, ApprovalEntity, ApprovalStatus } from './approval.entity';

export interface NewApproval {
  model: string;
  provider?: string | null;
  estimated_cost: number;
  hitl_threshold: number;
  retry_after_seconds: number;
  request_hash: string;
  request_id?: string | null;
  key_id?: string | null;
  /** How long it stays pending. */
  ttl_ms: number;
}

export type ApprovalStats = Record<ApprovalStatus, number>;

/**
 * What expires at `expires_at`: a pending approval, and an approved one that a failed request gave
 * back (`released_at`) and that nothing has used since. An approved approval never used keeps its
 * approval; a consumed one is done.
 */
function overdue(now: Date): Record<string, unknown> {
  return {
    expires_at: { $lte: now },
    $or: [{ status: 'pending' }, { status: 'approved', consumed_at: null, released_at: { $ne: null } }],
  };
}

export class ApprovalRepository extends TenantRepository<ApprovalEntity> {
  constructor(store: DocumentStore) {
    super(store, APPROVALS);
  }

  create(orgId: OrgId, input: NewApproval, now = new Date()): Promise<ApprovalEntity> {
    return this.insertIn(orgId, {
      _id: newId('approval'),
      status: 'pending',
      model: input.model,
      provider: input.provider ?? null,
      estimated_cost: input.estimated_cost,
      hitl_threshold: input.hitl_threshold,
      retry_after_seconds: input.retry_after_seconds,
      request_hash: input.request_hash,
      request_id: input.request_id ?? null,
      key_id: input.key_id ?? null,
      created_at: now,
      updated_at: now,
      expires_at: new Date(now.getTime() + input.ttl_ms),
      approved_by: null,
      approved_at: null,
      rejected_by: null,
      rejected_at: null,
      rejection_reason: null,
      consumed_at: null,
      consumed_by: null,
      released_at: null,
      used_at: null,
    });
  }

  /** One approval; a pending (or released) one past its expiry is marked expired first. */
  override async findById(orgId: OrgId, id: string, now = new Date()): Promise<ApprovalEntity | null> {
    const expired = await this.findOneAndUpdateIn(orgId, { _id: id, ...overdue(now) }, { $set: { status: 'expired', updated_at: now } });
    return expired ?? super.findById(orgId, id);
  }

  /** Approvals with a status (all when omitted), newest first. Overdue pending ones are marked expired first. */
  async listByStatus(orgId: OrgId, status: ApprovalStatus | undefined, page: PageRequest = {}, now = new Date()): Promise<Page<ApprovalEntity>> {
    await this.expireOverdue(orgId, now);
    return this.list(orgId, { ...page, ...(status ? { filter: { status } } : {}) });
  }

  async stats(orgId: OrgId, now = new Date()): Promise<ApprovalStats> {
    await this.expireOverdue(orgId, now);
    const rows = await this.aggregateIn<{ _id: ApprovalStatus; count: number }>(orgId, [
      { $group: { _id: '$status', count: { $sum: 1 } } },
    ]);
    const stats = Object.fromEntries(APPROVAL_STATUSES.map((s) => [s, 0])) as ApprovalStats;
    for (const row of rows) stats[row._id] = row.count;
    return stats;
  }

  /** Approves a pending, unexpired approval; null otherwise. */
  approve(orgId: OrgId, id: string, by: string, now = new Date()): Promise<ApprovalEntity | null> {
    return this.findOneAndUpdateIn(
      orgId,
      { _id: id, status: 'pending', expires_at: { $gt: now } },
      { $set: { status: 'approved', approved_by: by, approved_at: now, updated_at: now } },
    );
  }

  /** Rejects a pending, unexpired approval; null otherwise. */
  reject(orgId: OrgId, id: string, by: string, reason: string | null, now = new Date()): Promise<ApprovalEntity | null> {
    return this.findOneAndUpdateIn(
      orgId,
      { _id: id, status: 'pending', expires_at: { $gt: now } },
      { $set: { status: 'rejected', rejected_by: by, rejected_at: now, rejection_reason: reason, updated_at: now } },
    );
  }

  /** The newest approval for this request (same model and body hash), whatever its state. */
  findLatestForRequest(orgId: OrgId, model: string, requestHash: string): Promise<ApprovalEntity | null> {
    return this.findOneIn(orgId, { model, request_hash: requestHash }, { sort: { created_at: -1, _id: -1 } });
  }

  /**
   * Consumes, for the request `requestId`, the newest approval of this request (same model and body
   * hash) that is approved and unused (a given-back one before its expiry): an approved approval
   * wins over a newer pending one, so a request held again while its approval was in use is served
   * once that approval is given back. Null when there is none. One atomic update.
   */
  consumeForRequest(orgId: OrgId, model: string, requestHash: string, requestId: string, now = new Date()): Promise<ApprovalEntity | null> {
    return this.findOneAndUpdateIn(
      orgId,
      { model, request_hash: requestHash, status: 'approved', consumed_at: null, $or: [{ released_at: null }, { expires_at: { $gt: now } }] },
      { $set: { consumed_at: now, consumed_by: requestId, used_at: null, updated_at: now } },
      { sort: { created_at: -1, _id: -1 } },
    );
  }

  /**
   * The approval of this request (same model and body hash) that a request consumed at or after
   * `since` and has not finished with (no `used_at`, not given back): it is in use by a request in
   * flight. `since` bounds how long a request can be in flight, so an approval whose consumer died
   * without finishing counts as used after that.
   */
  findInFlight(orgId: OrgId, model: string, requestHash: string, since: Date): Promise<ApprovalEntity | null> {
    return this.findOneIn(
      orgId,
      { model, request_hash: requestHash, status: 'approved', consumed_at: { $gte: since }, consumed_by: { $ne: null }, used_at: null },
      { sort: { consumed_at: -1, _id: -1 } },
    );
  }

  /**
   * Records that the request `requestId` finished and kept the approval it consumed (`used_at`):
   * spent for good, no longer in flight. Null when `requestId` does not hold it.
   */
  markUsed(orgId: OrgId, id: string, requestId: string, now = new Date()): Promise<ApprovalEntity | null> {
    return this.findOneAndUpdateIn(orgId, { _id: id, status: 'approved', consumed_by: requestId, used_at: null }, { $set: { used_at: now, updated_at: now } });
  }

  /**
   * Consumes an approved, unconsumed approval whose body hash matches, for the request `requestId`
   * (the one that may `release` it); null when that is not the case, or when it was released and
   * is past its expiry (it is then expired).
   */
  consume(orgId: OrgId, id: string, requestHash: string, requestId: string, now = new Date()): Promise<ApprovalEntity | null> {
    return this.findOneAndUpdateIn(
      orgId,
      { _id: id, status: 'approved', request_hash: requestHash, consumed_at: null, $or: [{ released_at: null }, { expires_at: { $gt: now } }] },
      { $set: { consumed_at: now, consumed_by: requestId, used_at: null, updated_at: now } },
    );
  }

  /**
   * Gives a consumed approval back (approved and unused again) when the request that consumed it
   * ended without a provider answer the client could use. Only `requestId`, the consumer, can: a
   * late or repeated release never frees an approval another request has consumed since, nor one
   * marked used (`markUsed`). Past its `expires_at`, the released approval is expired. Null when
   * `requestId` does not hold it.
   */
  async release(orgId: OrgId, id: string, requestId: string, now = new Date()): Promise<ApprovalEntity | null> {
    const released = await this.findOneAndUpdateIn(
      orgId,
      { _id: id, status: 'approved', consumed_by: requestId, consumed_at: { $ne: null }, used_at: null },
      { $set: { consumed_at: null, consumed_by: null, released_at: now, updated_at: now } },
    );
    if (!released || released.expires_at.getTime() > now.getTime()) return released;
    return this.findById(orgId, id, now);
  }

  /** Marks the organization's overdue pending (or released) approvals expired; returns how many. */
  async expireOverdue(orgId: OrgId, now = new Date()): Promise<number> {
    const result = await this.updateManyIn(orgId, overdue(now), { $set: { status: 'expired', updated_at: now } });
    return result.modified;
  }

  /** Cross-tenant by design, for the periodic sweep: marks every overdue pending (or released) approval expired. */
  async expireOverdueAcrossOrgs(now = new Date()): Promise<number> {
    const result = await this.acrossTenants.updateMany(overdue(now), { $set: { status: 'expired', updated_at: now } });
    return result.modified;
  }
}
