import type { GovernanceService } from '@svc/governance';
import type { Logger } from '@svc/platform';
import { storable } from './idempotency';

/**
 * The HITL approval a served request consumed at stage 6 (docs/approvals.md). An approval
 * stands for one answer of the provider, not for one attempt: when the request ends without an
 * answer the client can use (the answers an Idempotency-Key is not stored for: a 5xx, 408, 409 or
 * 429, or none at all: a transport failure, a deadline, an open breaker, a refusal of the gateway's
 * own, the client leaving before the request went upstream), the approval is given back, so the
 * client's retry (the SDKs retry those by themselves) is served without a new review instead of
 * being held again. A provider answer the client can use (2xx, or a 4xx such as 400) keeps it used;
 * so does a stream that broke after its 200 (the client has the 200 and part of the answer, which
 * is charged), and the client leaving after the request went upstream (the provider may have
 * served and charged it). A kept approval is marked used (`keepApproval`): until then an identical
 * request finds it in use by this one (409 `approval_in_progress`).
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

  /** The request got its answer (or may have): the approval is used for good. Once; never throws. */
  async keep(): Promise<void> {
    const id = this.held;
    if (id === null) return;
    this.held = null;
    try {
      await this.governance.keepApproval(this.orgId, id, this.requestId);
    } catch (err) {
      // It stays consumed and in flight until the in-flight bound passes, then counts as used.
      this.logger.warn({ err, request_id: this.requestId, approval_id: id }, 'could not mark a consumed approval used');
    }
  }

  /**
   * Before the provider's answer of `status` is relayed (a whole one, or a stream's 200): one the
   * client cannot use gives the approval back, another marks it used, so the identical request
   * that follows at once finds it approved again, or used (a new 202), never still in use.
   */
  readonly beforeRelay = async (status: number): Promise<void> => {
    if (storable(status)) await this.keep();
    else await this.release();
  };

  /**
   * After the exchange answered: a usable answer keeps the approval used, another gives it back. A
   * stream (`streamed`) was answered 200 whatever its recorded status (502 when it broke): kept.
   */
  async settle(result: { status: number; streamed: boolean }): Promise<void> {
    if (result.streamed || storable(result.status)) await this.keep();
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
