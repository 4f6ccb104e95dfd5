import { ApprovalEntity, ApprovalStatus, roundUsd } from '@svc/domain';

/** `GET /v1/approvals/{id}/status` (SPEC.md "Approval polling"), scoped to the caller's organization. */
export interface ApprovalStatusView {
  approval_id: string;
  status: ApprovalStatus;
  org_id: string;
  model: string;
  estimated_cost: number;
  retry_after_seconds: number;
  created_at: string;
  /** While pending: when it expires. */
  expires_at?: string;
  approved_by?: string;
  approved_at?: string;
  rejected_at?: string;
  rejection_reason?: string;
}

/** Full approval details for the admin API. */
export interface ApprovalDetailsView extends ApprovalStatusView {
  provider: string | null;
  hitl_threshold: number;
  request_id: string | null;
  key_id: string | null;
  request_hash: string;
  rejected_by: string | null;
  /** When an approved request's re-submission took it; null while unused (or given back). */
  consumed_at: string | null;
  /** The request (`gw_...`) that took it; null while unused (or given back). */
  consumed_by: string | null;
  /** When the request that took it finished and kept it (spent for good); null while in flight. */
  used_at: string | null;
  /** When the last request that took it gave it back (no usable provider answer); null if never. */
  released_at: string | null;
  updated_at: string;
}

export function toStatusView(approval: ApprovalEntity): ApprovalStatusView {
  const view: ApprovalStatusView = {
    approval_id: approval._id,
    status: approval.status,
    org_id: approval.org_id,
    model: approval.model,
    estimated_cost: roundUsd(approval.estimated_cost),
    retry_after_seconds: approval.retry_after_seconds,
    created_at: approval.created_at.toISOString(),
  };
  if (approval.status === 'pending') view.expires_at = approval.expires_at.toISOString();
  if (approval.approved_by) view.approved_by = approval.approved_by;
  if (approval.approved_at) view.approved_at = approval.approved_at.toISOString();
  if (approval.status === 'rejected') {
    if (approval.rejected_at) view.rejected_at = approval.rejected_at.toISOString();
    if (approval.rejection_reason) view.rejection_reason = approval.rejection_reason;
  }
  return view;
}

export function toDetailsView(approval: ApprovalEntity): ApprovalDetailsView {
  return {
    ...toStatusView(approval),
    expires_at: approval.expires_at.toISOString(),
    provider: approval.provider,
    hitl_threshold: approval.hitl_threshold,
    request_id: approval.request_id,
    key_id: approval.key_id,
    request_hash: approval.request_hash,
    rejected_by: approval.rejected_by,
    consumed_at: iso(approval.consumed_at),
    consumed_by: approval.consumed_by ?? null,
    used_at: iso(approval.used_at),
    released_at: iso(approval.released_at),
    updated_at: approval.updated_at.toISOString(),
  };
}

function iso(date: Date | null | undefined): string | null {
  return date ? date.toISOString() : null;
}
