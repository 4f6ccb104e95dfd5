import { Body, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOkResponse } from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '@svc/auth';
import type { ApprovalStats } from '@svc/domain';
import { ApprovalDetailsView, ApprovalsService } from '@svc/governance';
import { AdminPage, AdminQuery, PageQuery } from '../common/admin-query';
import { AdminController, AdminRoute } from '../common/admin-route';
import { NoBody } from '@svc/platform';
import { APPROVAL_DETAILS, APPROVAL_PAGE, APPROVAL_STATS, RejectApprovalDto } from './dto/approval.dto';

/** Who reviewed: the dashboard user, or the gateway key that called. */
export function reviewerOf(principal: Principal): string {
  return principal.userId ?? principal.keyId ?? principal.kind;
}

/** SPEC.md HITL approvals, through the governance ApprovalsService (the one stage 6 uses). */
@AdminController('approvals', 'approvals')
export class ApprovalsController {
  constructor(private readonly approvals: ApprovalsService) {}

  @Get()
  @AdminRoute('admin:read', 'Pending approvals, newest first (paginated)', '`offset`, `limit` 1–1000 (default 20). Overdue ones are expired first.')
  @ApiOkResponse({ schema: APPROVAL_PAGE })
  list(@CurrentPrincipal() principal: Principal, @Query() query: PageQuery): Promise<AdminPage<ApprovalDetailsView>> {
    return this.approvals.listPending(principal.orgId, { offset: query.offset ?? 0, limit: query.limit ?? 20 });
  }

  @Get('stats')
  @AdminRoute('admin:read', 'Counts of pending, approved, rejected and expired approvals')
  @ApiOkResponse({ schema: APPROVAL_STATS })
  stats(@CurrentPrincipal() principal: Principal, @Query() _query: AdminQuery): Promise<ApprovalStats & { total: number }> {
    return this.approvals.stats(principal.orgId);
  }

  @Get(':id')
  @AdminRoute('admin:read', 'Full approval details', '404 `not_found` (param `approval_id`) for an unknown id or another organization’s.')
  @ApiOkResponse({ schema: APPROVAL_DETAILS })
  get(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Query() _query: AdminQuery): Promise<ApprovalDetailsView> {
    return this.approvals.get(principal.orgId, id);
  }

  @Post(':id/approve')
  @HttpCode(200)
  @AdminRoute('admin:write', 'Approve a pending request', 'Takes no body (a field is a 400). Records who approved (`approved_by`: the user or key id) and when. 409 `invalid_state` unless pending; 403 `self_approval_not_allowed` with the gateway key that made the request.')
  @ApiOkResponse({ schema: APPROVAL_DETAILS, description: 'The approval, now `approved`' })
  approve(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @NoBody() _body: undefined, @Query() _query: AdminQuery): Promise<ApprovalDetailsView> {
    return this.approvals.approve(principal.orgId, id, reviewerOf(principal), principal.userId ? null : principal.keyId);
  }

  @Post(':id/reject')
  @HttpCode(200)
  @AdminRoute('admin:write', 'Reject a pending request', '`reason` is required (400 without). 409 `invalid_state` unless pending.')
  @ApiOkResponse({ schema: APPROVAL_DETAILS, description: 'The approval, now `rejected`, with `rejected_at` and `rejection_reason`' })
  reject(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Body() body: RejectApprovalDto, @Query() _query: AdminQuery): Promise<ApprovalDetailsView> {
    return this.approvals.reject(principal.orgId, id, reviewerOf(principal), body.reason);
  }
}
