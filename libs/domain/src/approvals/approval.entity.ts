import { defineCollection } from '../store/types';

export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected', 'expired'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/** A HITL approval (SPEC.md "Approval"), bound to the org, the model and a hash of the request body. */
export interface ApprovalEntity {
  /** `apr_...` */
  _id: string;
  org_id: string;
  status: ApprovalStatus;
  model: string;
  provider: string | null;
  estimated_cost: number;
  hitl_threshold: number;
  retry_after_seconds: number;
  /** SHA-256 of the canonical request body; a re-submission must match it. */
  request_hash: string;
  /** The `gw_` id of the request that triggered it. */
  request_id: string | null;
  key_id: string | null;
  created_at: Date;
  updated_at: Date;
  /** A pending approval expires then (default 24 h). */
  expires_at: Date;
  approved_by: string | null;
  approved_at: Date | null;
  rejected_by: string | null;
  rejected_at: Date | null;
  rejection_reason: string | null;
  /** Set when the approved request was re-submitted and proxied (an approval is consumed once). */
  consumed_at: Date | null;
  /**
   * The request id (`gw_...`) of the re-submission that consumed it: only that request can give it
   * back (`release`). Absent on approvals stored before releases existed.
   */
  consumed_by?: string | null;
  /**
   * Set when the consuming request ended without a provider answer the client could use and gave
   * the approval back: approved and unused again, and from then on it expires at `expires_at` as a
   * pending one does. Absent on approvals stored before releases existed.
   */
  released_at?: Date | null;
  /**
   * Set when the request that consumed it (`consumed_by`) finished and kept it: the provider
   * answered something the client could use (or may have served it), so it is spent for good.
   * Consumed without `used_at`, the approval is in use by a request still in flight. Absent on
   * approvals stored before it existed.
   */
  used_at?: Date | null;
}

export const APPROVALS = defineCollection<ApprovalEntity>('approvals', [
  { fields: { org_id: 1, status: 1, created_at: -1 }, comment: 'approvals of an org by status, newest first; stats' },
  {
    fields: { org_id: 1, model: 1, request_hash: 1, created_at: -1 },
    comment: 'the latest approval for a re-submitted request (same org, model and body hash)',
  },
  { fields: { status: 1, expires_at: 1 }, comment: 'expiry sweep: pending approvals past expires_at, all orgs' },
]);
