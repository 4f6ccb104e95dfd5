import { GatewayError } from '@svc/platform';
import { formatUsd, roundUsd } from '@svc/domain';
import { ApprovalsService } from '../approvals/approvals.service';
import { requestHash } from '../approvals/request-hash';
import { ALLOW, ChainContext, StageResult } from '../chain/context';

/**
 * Stage 6, HITL gate. An estimate above `hitl_cost_threshold` needs a reviewer's approval bound to
 * the organization, the model and the SHA-256 of the canonical body:
 * - approved and unused (given back included): the newest such approval is consumed (once,
 *   atomically) by this request and the request proceeds, even when a newer pending one exists;
 *   the proxy gives it back (`GovernanceService.releaseApproval`) when the provider's answer is not
 *   one the client can use (5xx, 408, 409, 429, a transport failure, an open breaker), so the next
 *   identical re-submission is served without a new review; a given-back approval past
 *   `expires_at` is expired; otherwise the proxy marks it used (`keepApproval`);
 * - in use by an identical request still in flight: 409 `approval_in_progress` (GW_HITL_002) with
 *   `Retry-After` and `X-SVC-Approval-ID`, never a new approval: the retry is served if the first
 *   one gives the approval back, and held under a new approval if it used it;
 * - rejected (the newest one): 403 `approval_rejected` for as long as the same request is re-submitted;
 * - pending: the same approval again, 202;
 * - none yet, or the last one expired or was used: a new pending approval, 202.
 * A caller with `admin:write` on a plan that includes it may skip the gate (`hitlBypass`).
 */

/** What a request that finds its approval in use by an identical request in flight is told to wait. */
export const IN_FLIGHT_RETRY_AFTER_SECONDS = 1;

export type HitlApprovals = Pick<ApprovalsService, 'findLatestForRequest' | 'request' | 'consumeForRequest' | 'findInFlight' | 'retryAfterSeconds'>;

export function bypassesGate(ctx: ChainContext): boolean {
  const scopes = ctx.input.principal.scopes;
  return ctx.input.hitlBypass === true && (scopes.includes('admin:write') || scopes.includes('gateway_admin'));
}

export async function hitlStage(ctx: ChainContext, approvals: HitlApprovals): Promise<StageResult> {
  const estimate = ctx.estimate?.estimated_cost ?? 0;
  const threshold = ctx.policy.hitl_cost_threshold;
  if (estimate <= threshold || bypassesGate(ctx)) return ALLOW;
  const { input } = ctx;
  const hash = requestHash(input.body);
  const consumed = await approvals.consumeForRequest(ctx.orgId, input.model, hash, input.requestId);
  if (consumed) {
    ctx.consumedApprovalId = consumed._id;
    return ALLOW;
  }
  const inFlight = await approvals.findInFlight(ctx.orgId, input.model, hash);
  if (inFlight) {
    const retryAfter = String(IN_FLIGHT_RETRY_AFTER_SECONDS);
    return {
      outcome: 'BLOCK',
      error: new GatewayError(
        409,
        {
          message: `Approval ${inFlight._id} for this request is in use by an identical request still in progress`,
          type: 'invalid_request_error',
          code: 'approval_in_progress',
          gateway_error_code: 'GW_HITL_002',
          remediation: 'Retry once the first request has finished: it is served if that request gave the approval back, and held for a new approval if it used it.',
        },
        { 'Retry-After': retryAfter, 'X-SVC-Approval-ID': inFlight._id },
      ),
    };
  }
  const latest = await approvals.findLatestForRequest(ctx.orgId, input.model, hash);
  if (latest?.status === 'rejected') {
    const by = latest.rejected_by ? ` by ${latest.rejected_by}` : '';
    const reason = latest.rejection_reason ? `: ${latest.rejection_reason}` : '';
    return {
      outcome: 'BLOCK',
      error: new GatewayError(403, {
        message: `Approval ${latest._id} for this request was rejected${by}${reason}`,
        type: 'permission_error',
        code: 'approval_rejected',
        gateway_error_code: 'GW_HITL_001',
        remediation: 'Change the request (a cheaper model, fewer max_tokens) or ask a reviewer why it was rejected.',
      }),
    };
  }
  const reuse = latest?.status === 'pending' && latest.expires_at.getTime() > input.now.getTime() ? latest : null;
  const approval =
    reuse ??
    (await approvals.request(ctx.orgId, {
      model: input.model,
      provider: input.provider,
      estimatedCost: estimate,
      hitlThreshold: threshold,
      requestHash: hash,
      requestId: input.requestId,
      keyId: input.principal.keyId,
    }));
  const retryAfter = approval.retry_after_seconds || approvals.retryAfterSeconds;
  return {
    outcome: 'NEEDS_APPROVAL',
    approval: {
      status: 'pending_approval',
      approval_id: approval._id,
      retry_after_seconds: retryAfter,
      message: `The estimated cost of ${formatUsd(estimate)} is above the approval threshold of ${formatUsd(threshold)}. Poll GET /v1/approvals/${approval._id}/status and send the same request again once it is approved.`,
      estimated_cost: roundUsd(estimate),
      model: input.model,
    },
    headers: { 'Retry-After': String(retryAfter), 'X-SVC-Approval-ID': approval._id },
    events: reuse
      ? []
      : [
          {
            type: 'approval.requested',
            data: {
              request_id: input.requestId,
              model: input.model,
              estimated_cost: roundUsd(estimate),
              hitl_threshold: threshold,
              approval_id: approval._id,
              timestamp: ctx.timestamp,
            },
          },
        ],
  };
}
