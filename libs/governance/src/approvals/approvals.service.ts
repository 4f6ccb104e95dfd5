import { ApprovalEntity, ApprovalRepository, ApprovalStats, asOrgId, OrgId, PageRequest } from '@svc/domain';
import { ConflictError, GatewayError, invalidRequest, notFound } from '@svc/platform';
import { ApprovalDetailsView, ApprovalStatusView, toDetailsView, toStatusView } from './approval.views';

export interface ApprovalsOptions {
  /** A pending approval expires after this long (APPROVAL_TTL_HOURS, default 24). */
  ttlHours: number;
  /** What a client waiting for a review is told to wait between polls (default 30 s). */
  retryAfterSeconds?: number;
  now?: () => Date;
  /** The organization's gateway keys, to follow a rotated key to its replacements (self-approval). */
  keys?: KeyLineage;
  /**
   * How long a request that consumed an approval can be in flight (the upstream total deadline and
   * some margin; default 11 min): past it, an approval its consumer never finished with counts as used.
   */
  inFlightMs?: number;
}

/** What the self-approval rule reads of a gateway key: the key that replaced it on rotation, if any. */
export interface KeyLineage {
  findById(orgId: OrgId, id: string): Promise<{ replaced_by: string | null } | null>;
}

/** Rotations followed from a requesting key; a longer chain is not followed further. */
const MAX_ROTATIONS_FOLLOWED = 32;

export interface NewApprovalRequest {
  model: string;
  provider: string | null;
  estimatedCost: number;
  hitlThreshold: number;
  /** SHA-256 of the canonical request body (`requestHash`). */
  requestHash: string;
  requestId: string;
  keyId: string | null;
}

export const MAX_REJECTION_REASON = 1000;

/**
 * HITL approvals (SPEC.md "Approval"): created pending by stage 6, approved or rejected by a
 * reviewer (the admin API), expired by the sweep after APPROVAL_TTL_HOURS, consumed once by the
 * re-submitted request that matches the organization, the model and the body hash, and given back
 * (`release`) when that request got no provider answer the client could use.
 * Everything is scoped to an organization; an id of another organization is not found.
 */
export class ApprovalsService {
  readonly retryAfterSeconds: number;
  private readonly ttlMs: number;
  private readonly now: () => Date;
  private readonly keys: KeyLineage | undefined;
  private readonly inFlightMs: number;

  constructor(
    private readonly repository: ApprovalRepository,
    options: ApprovalsOptions,
  ) {
    this.ttlMs = Math.round(options.ttlHours * 3_600_000);
    this.retryAfterSeconds = options.retryAfterSeconds ?? 30;
    this.now = options.now ?? (() => new Date());
    this.keys = options.keys;
    this.inFlightMs = options.inFlightMs ?? 660_000;
  }

  /** A new pending approval. */
  request(orgId: string, input: NewApprovalRequest): Promise<ApprovalEntity> {
    return this.repository.create(
      asOrgId(orgId),
      {
        model: input.model,
        provider: input.provider,
        estimated_cost: input.estimatedCost,
        hitl_threshold: input.hitlThreshold,
        retry_after_seconds: this.retryAfterSeconds,
        request_hash: input.requestHash,
        request_id: input.requestId,
        key_id: input.keyId,
        ttl_ms: this.ttlMs,
      },
      this.now(),
    );
  }

  /** The newest approval for the same organization, model and body hash, in whatever state. */
  findLatestForRequest(orgId: string, model: string, hash: string): Promise<ApprovalEntity | null> {
    return this.repository.findLatestForRequest(asOrgId(orgId), model, hash);
  }

  /**
   * Consumes for the re-submission `requestId` the newest approved, unused approval of the same
   * organization, model and body hash (an approved one wins over a newer pending one); null when
   * there is none.
   */
  consumeForRequest(orgId: string, model: string, hash: string, requestId: string): Promise<ApprovalEntity | null> {
    return this.repository.consumeForRequest(asOrgId(orgId), model, hash, requestId, this.now());
  }

  /** The approval of the same organization, model and body hash that a request still in flight consumed, if any. */
  findInFlight(orgId: string, model: string, hash: string): Promise<ApprovalEntity | null> {
    return this.repository.findInFlight(asOrgId(orgId), model, hash, new Date(this.now().getTime() - this.inFlightMs));
  }

  /** The request `requestId` finished and kept the approval it consumed (`used_at`): spent for good. */
  markUsed(orgId: string, id: string, requestId: string): Promise<ApprovalEntity | null> {
    return this.repository.markUsed(asOrgId(orgId), id, requestId, this.now());
  }

  /**
   * Marks an approved approval used by its re-submission `requestId`; null when it is not approved,
   * used, bound to another body, or released and past its expiry.
   */
  consume(orgId: string, id: string, hash: string, requestId: string): Promise<ApprovalEntity | null> {
    return this.repository.consume(asOrgId(orgId), id, hash, requestId, this.now());
  }

  /**
   * Gives the approval back when the request `requestId` that consumed it got no provider answer the
   * client could use, so the next identical re-submission is served without a new review. Null
   * when `requestId` does not hold it (never consumed by it, or already given back).
   */
  release(orgId: string, id: string, requestId: string): Promise<ApprovalEntity | null> {
    return this.repository.release(asOrgId(orgId), id, requestId, this.now());
  }

  /** `GET /v1/approvals/{id}/status`: 404 `not_found` (param `approval_id`) for an unknown id. */
  async status(orgId: string, id: string): Promise<ApprovalStatusView> {
    return toStatusView(await this.find(orgId, id));
  }

  async get(orgId: string, id: string): Promise<ApprovalDetailsView> {
    return toDetailsView(await this.find(orgId, id));
  }

  /**
   * Records who approved and when; 409 `invalid_state` unless the approval is pending. The gateway
   * key that made the request cannot approve it (403 `self_approval_not_allowed`), nor a key that
   * replaced it by rotation: the approval gate would otherwise be a second call away for any key
   * with `admin:write` (a rotation away), where skipping it is a plan feature (`X-SVC-HITL-Bypass`).
   */
  async approve(orgId: string, id: string, reviewer: string, reviewerKeyId: string | null = null): Promise<ApprovalDetailsView> {
    if (reviewerKeyId !== null) {
      const approval = await this.find(orgId, id);
      if (approval.key_id !== null && (await this.sameKey(asOrgId(orgId), approval.key_id, reviewerKeyId))) {
        throw new GatewayError(403, {
          message: 'A request cannot be approved with the gateway key that made it',
          type: 'permission_error',
          code: 'self_approval_not_allowed',
          remediation: 'Have a reviewer approve it in the dashboard, or with another key that has admin:write.',
        });
      }
    }
    const approved = await this.repository.approve(asOrgId(orgId), id, reviewer, this.now());
    if (approved) return toDetailsView(approved);
    throw this.notPending(await this.find(orgId, id), 'approved');
  }

  /** `reviewerKeyId` is `requesterKeyId` or a key that replaced it, one rotation after another. */
  private async sameKey(orgId: OrgId, requesterKeyId: string, reviewerKeyId: string): Promise<boolean> {
    let id: string | null = requesterKeyId;
    for (let step = 0; id !== null && step <= MAX_ROTATIONS_FOLLOWED; step++) {
      if (id === reviewerKeyId) return true;
      id = this.keys ? ((await this.keys.findById(orgId, id))?.replaced_by ?? null) : null;
    }
    return false;
  }

  /** Rejects with a reason (400 when it is missing); 409 `invalid_state` unless pending. */
  async reject(orgId: string, id: string, reviewer: string, reason: unknown): Promise<ApprovalDetailsView> {
    const text = typeof reason === 'string' ? reason.trim() : '';
    if (text.length === 0) throw invalidRequest('A reason is required to reject an approval', 'reason');
    if (text.length > MAX_REJECTION_REASON) throw invalidRequest(`The reason must be at most ${MAX_REJECTION_REASON} characters`, 'reason');
    const rejected = await this.repository.reject(asOrgId(orgId), id, reviewer, text, this.now());
    if (rejected) return toDetailsView(rejected);
    throw this.notPending(await this.find(orgId, id), 'rejected');
  }

  /** The sweep: every overdue pending approval of every organization becomes expired. */
  expireOverdue(): Promise<number> {
    return this.repository.expireOverdueAcrossOrgs(this.now());
  }

  async stats(orgId: string): Promise<ApprovalStats & { total: number }> {
    const stats = await this.repository.stats(asOrgId(orgId), this.now());
    return { ...stats, total: stats.pending + stats.approved + stats.rejected + stats.expired };
  }

  /** Pending approvals, newest first. */
  async listPending(orgId: string, page: PageRequest = {}): Promise<{ items: ApprovalDetailsView[]; total: number; offset: number; limit: number }> {
    const result = await this.repository.listByStatus(asOrgId(orgId), 'pending', page, this.now());
    return { ...result, items: result.items.map(toDetailsView) };
  }

  private async find(orgId: string, id: string): Promise<ApprovalEntity> {
    const approval = typeof id === 'string' && id.length > 0 ? await this.repository.findById(asOrgId(orgId), id, this.now()) : null;
    if (!approval) throw notFound('Approval', 'approval_id');
    return approval;
  }

  private notPending(approval: ApprovalEntity, verb: string): ConflictError {
    return new ConflictError('invalid_state', `Approval ${approval._id} is ${approval.status}; only a pending approval can be ${verb}.`, {
      status: approval.status,
    });
  }
}
