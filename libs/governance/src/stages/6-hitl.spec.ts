import { ApprovalsService } from '../approvals/approvals.service';
import { chatBody, contextFor, createOrg, openTestRepositories, principalFor, TestRepositories } from '../chain/governance.fixtures';
import { ChainContext } from '../chain/context';
import { estimateStage } from './2-cost-estimate';
import { requestHash } from '../approvals/request-hash';
import { hitlStage, IN_FLIGHT_RETRY_AFTER_SECONDS } from './6-hitl';

describe('stage 6, HITL gate', () => {
  let db: TestRepositories;
  let approvals: ApprovalsService;
  let org: Awaited<ReturnType<typeof createOrg>>;
  let now: Date;

  beforeEach(async () => {
    db = await openTestRepositories();
    now = new Date();
    approvals = new ApprovalsService(db.repositories.approvals, { ttlHours: 1, now: () => now });
    org = await createOrg(db.repositories);
  });
  afterEach(() => db.close());

  const expensive = (text = 'Write an essay.', scopes?: string[]): ChainContext => {
    const ctx = contextFor({
      profile: { orgId: org._id as never, policy: { hitl_cost_threshold: 0.01 } },
      input: { model: 'gpt-4o', body: chatBody(text, { model: 'gpt-4o', max_tokens: 4000 }), now, ...(scopes ? { hitlBypass: true } : {}) },
    });
    ctx.input.principal = principalFor(org, scopes ? { scopes } : {});
    estimateStage(ctx);
    return ctx;
  };

  it('allows estimates up to the threshold', async () => {
    const ctx = contextFor({ input: { body: chatBody('hi', { max_tokens: 10 }) } });
    estimateStage(ctx);
    expect((await hitlStage(ctx, approvals)).outcome).toBe('ALLOW');
  });

  it('holds an expensive request with the 202 body, headers and approval.requested; the same request gets the same approval', async () => {
    const first = await hitlStage(expensive(), approvals);
    if (first.outcome !== 'NEEDS_APPROVAL') throw new Error('expected NEEDS_APPROVAL');
    expect(first.approval).toMatchObject({ status: 'pending_approval', retry_after_seconds: 30, model: 'gpt-4o' });
    expect(first.approval.approval_id).toMatch(/^apr_/);
    expect(first.approval.estimated_cost).toBeGreaterThan(0.01);
    expect(first.approval.message).toContain(`/v1/approvals/${first.approval.approval_id}/status`);
    expect(first.headers).toEqual({ 'Retry-After': '30', 'X-SVC-Approval-ID': first.approval.approval_id });
    expect(first.events?.[0]).toMatchObject({ type: 'approval.requested', data: { approval_id: first.approval.approval_id, hitl_threshold: 0.01, model: 'gpt-4o' } });
    const again = await hitlStage(expensive(), approvals);
    expect(again.outcome === 'NEEDS_APPROVAL' && again.approval.approval_id).toBe(first.approval.approval_id);
    expect(again.events).toEqual([]);
    const other = await hitlStage(expensive('Another essay.'), approvals);
    expect(other.outcome === 'NEEDS_APPROVAL' && other.approval.approval_id).not.toBe(first.approval.approval_id);
  });

  it('lets an approved request through once: an identical one is 409 approval_in_progress while it is in flight, held again once it used it', async () => {
    const first = await hitlStage(expensive(), approvals);
    const id = first.outcome === 'NEEDS_APPROVAL' ? first.approval.approval_id : '';
    await approvals.approve(org._id, id, 'usr_reviewer');
    const served = expensive();
    expect((await hitlStage(served, approvals)).outcome).toBe('ALLOW');
    expect(served.consumedApprovalId).toBe(id);
    const during = await hitlStage(expensive(), approvals);
    if (during.outcome !== 'BLOCK') throw new Error('expected BLOCK');
    expect(during.error.status).toBe(409);
    expect(during.error.body).toMatchObject({ type: 'invalid_request_error', code: 'approval_in_progress', gateway_error_code: 'GW_HITL_002' });
    expect(during.error.headers).toEqual({ 'Retry-After': String(IN_FLIGHT_RETRY_AFTER_SECONDS), 'X-SVC-Approval-ID': id });
    await approvals.markUsed(org._id, id, served.input.requestId);
    const next = await hitlStage(expensive(), approvals);
    expect(next.outcome === 'NEEDS_APPROVAL' && next.approval.approval_id).not.toBe(id);
  });

  it('an approved, unused approval wins over a newer pending one of the same request', async () => {
    const first = await hitlStage(expensive(), approvals);
    const id = first.outcome === 'NEEDS_APPROVAL' ? first.approval.approval_id : '';
    await approvals.approve(org._id, id, 'usr_reviewer');
    const served = expensive();
    expect((await hitlStage(served, approvals)).outcome).toBe('ALLOW');
    // A newer pending approval of the same request (as one held while the first was in flight).
    now = new Date(now.getTime() + 1000);
    await approvals.request(org._id, { model: 'gpt-4o', provider: null, estimatedCost: 1, hitlThreshold: 0.01, requestHash: requestHash(served.input.body), requestId: 'gw_other', keyId: null });
    await approvals.release(org._id, id, served.input.requestId);
    const retry = expensive();
    expect((await hitlStage(retry, approvals)).outcome).toBe('ALLOW');
    expect(retry.consumedApprovalId).toBe(id);
  });

  it('an approval whose consumer never finished counts as used once the in-flight bound has passed', async () => {
    approvals = new ApprovalsService(db.repositories.approvals, { ttlHours: 1, now: () => now, inFlightMs: 60_000 });
    const first = await hitlStage(expensive(), approvals);
    const id = first.outcome === 'NEEDS_APPROVAL' ? first.approval.approval_id : '';
    await approvals.approve(org._id, id, 'usr_reviewer');
    expect((await hitlStage(expensive(), approvals)).outcome).toBe('ALLOW');
    expect((await hitlStage(expensive(), approvals)).outcome).toBe('BLOCK');
    now = new Date(now.getTime() + 60_001);
    const later = await hitlStage(expensive(), approvals);
    expect(later.outcome === 'NEEDS_APPROVAL' && later.approval.approval_id).not.toBe(id);
  });

  it('refuses a rejected request with 403 approval_rejected, and replaces an expired one', async () => {
    const first = await hitlStage(expensive(), approvals);
    const id = first.outcome === 'NEEDS_APPROVAL' ? first.approval.approval_id : '';
    await approvals.reject(org._id, id, 'usr_reviewer', 'Too expensive');
    const rejected = await hitlStage(expensive(), approvals);
    if (rejected.outcome !== 'BLOCK') throw new Error('expected BLOCK');
    expect(rejected.error.status).toBe(403);
    expect(rejected.error.body).toMatchObject({ type: 'permission_error', code: 'approval_rejected', gateway_error_code: 'GW_HITL_001' });
    expect(rejected.error.body.message).toContain('Too expensive');

    const pending = await hitlStage(expensive('A different essay.'), approvals);
    const pendingId = pending.outcome === 'NEEDS_APPROVAL' ? pending.approval.approval_id : '';
    now = new Date(now.getTime() + 3_600_001);
    const renewed = await hitlStage(expensive('A different essay.'), approvals);
    expect(renewed.outcome === 'NEEDS_APPROVAL' && renewed.approval.approval_id).not.toBe(pendingId);
  });

  it('is skipped for an admin key that asks to bypass it, not for others', async () => {
    expect((await hitlStage(expensive('x', ['gateway:write', 'admin:write']), approvals)).outcome).toBe('ALLOW');
    expect((await hitlStage(expensive('x', ['gateway:write']), approvals)).outcome).toBe('NEEDS_APPROVAL');
  });
});
