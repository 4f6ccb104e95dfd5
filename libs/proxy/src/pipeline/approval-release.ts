import type { GovernanceService } from '@svc/governance';
import type { Logger } from '@svc/platform';
import { storable } from './idempotency';

/**
 * The HITL approval a served request consumed at stage 6 (docs/governance.md "HITL"). An approval
 * stands for one answer of the provider, not for one attempt: when the request ends without an
 * answer the client can use (the answers an Idempotency-Key is not stored for: a 5xx, 408, 409 or
 * 429, or none at all: a transport failure, a deadline, an open breaker, a refusal of the gateway's
 * own, the client leaving before the request went upstream), the approval is given back, so the
 * client's retry (the SDKs retry those by themselves) is served without a new review instead of
 * being held again. A provider answer the client can use (2xx, or a 4xx such as 400) keeps it used;
 * so does the client leaving after the request went upstream (the provider may have served and
 * charged it).
 */
export class ConsumedApproval {
  private held: string | null;

  /** `approvalId`: the approval the governance decision says this request consumed (`consumedApprovalId`). */
  constructor(
    private readonly governance: GovernanceService,
    private readonly orgId: string,
    private readonly requestId: string,
    private readonly logger: Logger,
    approvalId: string,
  ) {
    this.held = approvalId;
  }

  /** The request got its answer: the approval stays used. */
  keep(): void {
    this.held = null;
  }

  /**
   * Before the provider's answer of `status` is relayed: one the client cannot use gives the
   * approval back first, so a retry that follows at once already finds it approved.
   */
  readonly beforeRelay = async (status: number): Promise<void> => {
    if (!storable(status)) await this.release();
  };

  /** After the exchange answered (whole or streamed): a usable answer keeps the approval used, another gives it back. */
  async settle(status: number): Promise<void> {
    if (storable(status)) this.keep();
    else await this.release();
  }

  /** Gives it back unless kept; once. Never throws: a failed release leaves the approval used, as before releases existed. */
  async release(): Promise<void> {
    const id = this.held;
    if (id === null) return;
    this.held = null;
    try {
      await this.governance.releaseApproval(this.orgId, id, this.requestId);
    } catch (err) {
      this.logger.warn({ err, request_id: this.requestId, approval_id: id }, 'could not give back a consumed approval');
    }
  }
}
