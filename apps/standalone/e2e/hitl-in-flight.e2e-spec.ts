import OpenAI from 'openai';
import { asOrgId } from '@svc/domain';
import { checkAnswer, OpenApiJson } from '@svc/testing';
import { chat, HitlClient, ISO, pause } from './hitl.helpers';
import { PROVIDER_KEY, Standalone } from './standalone.helpers';

/**
 * An approval in use by a re-submission still in flight (docs/approvals.md): an
 * identical request meanwhile is told to retry (409 `approval_in_progress`), never held under a new
 * approval; an approved, unused approval wins over a pending one of the same request; a stream that
 * broke after its 200 keeps the approval used; the admin view says whether and when an approval was
 * taken, used or given back. Over real HTTP on the whole service, the mock provider failing on demand.
 */
describe('HITL: an approval in use by a request in flight', () => {
  let s: Standalone;
  let h: HitlClient;
  let doc: OpenApiJson;

  const pendingTotal = async () => (await h.gw('GET', '/gateway/admin/approvals', h.reviewer)).body.total as number;

  beforeAll(async () => {
    s = await Standalone.boot({ email: 'hitl-in-flight@example.com', password: 'hitl-in-flight-password-1' }, 'enterprise', { CIRCUIT_BREAKER_FAILURE_THRESHOLD: '1000' });
    s.mock.configure({ record: true });
    h = new HitlClient(s);
    await h.init();
    doc = (await (await fetch(`${s.service.urls.gateway}/docs/json`)).json()) as OpenApiJson;
  });
  afterAll(() => s.stop());
  afterEach(() => s.mock.setBehavior(null));

  it('a second identical request while the first is in flight is 409 approval_in_progress, not a new approval; the first failing gives it back and the next is served under it', async () => {
    const body = chat('second while the first is in flight');
    const id = await h.approved(body);
    const pendingBefore = await pendingTotal();
    s.mock.setBehavior({ latencyMs: 400, fail: { status: 503, times: 1 } });
    const first = h.send(body);
    await pause(150);

    const second = await h.send(body);
    expect(second.status).toBe(409);
    expect(second.body.error).toMatchObject({ type: 'invalid_request_error', code: 'approval_in_progress', gateway_error_code: 'GW_HITL_002' });
    expect(second.body.error.message).toContain(id);
    expect(second.headers.get('x-svc-approval-id')).toBe(id);
    expect(second.headers.get('retry-after')).toBe('1');
    // While in flight, the admin view shows who took it and that it is not used yet.
    const during = await h.details(id);
    expect(during.body).toMatchObject({ status: 'approved', consumed_at: expect.stringMatching(ISO), consumed_by: expect.stringMatching(/^gw_/), used_at: null, released_at: null });
    expect(checkAnswer(doc, 'GET', '/gateway/admin/approvals/{id}', during.status, during.body).departures).toEqual([]);

    expect((await first).status).toBe(503);
    await h.expectReleased(id);
    expect(await pendingTotal()).toBe(pendingBefore);
    const released = await h.details(id);
    expect(checkAnswer(doc, 'GET', '/gateway/admin/approvals/{id}', released.status, released.body).departures).toEqual([]);

    const served = await h.send(body);
    expect(served.status).toBe(200);
    expect(served.body.choices[0].message.content).toMatch(/^mock reply to: second/);
    expect(h.upstream('second while the first is in flight')).toBe(2);
    await h.expectConsumed(id, served.headers.get('x-svc-request-id') ?? '');
    const used = await h.details(id);
    expect(used.body.released_at).toMatch(ISO);
    expect(checkAnswer(doc, 'GET', '/gateway/admin/approvals/{id}', used.status, used.body).departures).toEqual([]);
    // Used by that answer: the next one is held under a new approval.
    const again = await h.send(body);
    expect(again.status).toBe(202);
    expect(again.body.approval_id).not.toBe(id);
  });

  it('the OpenAI SDK sent while the approved request is in flight retries the 409 by itself and gets the completion once the first gives the approval back', async () => {
    const body = chat('sdk waits for the approval in use');
    const id = await h.approved(body);
    s.mock.setBehavior({ latencyMs: 400, fail: { status: 503, times: 1 } });
    const first = h.send(body);
    await pause(150);
    const client = new OpenAI({ apiKey: h.requester, baseURL: `${s.service.urls.gateway}/v1`, defaultHeaders: { 'X-Provider-Key': PROVIDER_KEY }, maxRetries: 2 });
    const completion = await client.chat.completions.create(body);
    expect(completion).not.toHaveProperty('approval_id');
    expect(completion.choices[0].message.content).toMatch(/^mock reply to: sdk waits/);
    expect((await first).status).toBe(503);
    expect(h.upstream('sdk waits for the approval in use')).toBe(2);
    await h.expectConsumed(id);
  });

  it('an approved, unused approval wins over a newer pending approval of the same request', async () => {
    const body = chat('approved wins over pending');
    const id = await h.approved(body);
    const { request_hash: hash, estimated_cost: cost } = (await h.details(id)).body;
    // A newer pending approval of the same request (held while the approved one was in use before this rule, or once its consumer died).
    const newer = await s.service.runtime.repositories.approvals.create(asOrgId(s.orgId), {
      model: 'gpt-4o-mini',
      estimated_cost: cost,
      hitl_threshold: 0.0000001,
      retry_after_seconds: 30,
      request_hash: hash,
      ttl_ms: 3_600_000,
    });
    const served = await h.send(body);
    expect(served.status).toBe(200);
    expect(served.headers.get('x-svc-approval-id')).toBeNull();
    await h.expectConsumed(id, served.headers.get('x-svc-request-id') ?? '');
    expect((await h.details(newer._id)).body).toMatchObject({ status: 'pending', consumed_at: null });
    // The approved one used, the pending one is what the same request gets now.
    const held = await h.send(body);
    expect(held.status).toBe(202);
    expect(held.body.approval_id).toBe(newer._id);
    expect(h.upstream('approved wins over pending')).toBe(1);
  });

  it('a stream the provider broke after its 200 keeps the approval used (the client got the 200 and part of the answer, which is charged)', async () => {
    const body = chat('a stream broken after its 200', { stream: true });
    const id = await h.approved(body);
    s.mock.setBehavior({ abort: { afterChunks: 2 } });
    const broken = await h.send(body);
    expect(broken.status).toBe(200);
    expect(broken.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(broken.body.text).not.toContain('data: [DONE]');
    await h.expectConsumed(id, broken.headers.get('x-svc-request-id') ?? '');
    expect((await h.details(id)).body.released_at).toBeNull();
    const again = await h.send(body);
    expect(again.status).toBe(202);
    expect(again.body.approval_id).not.toBe(id);
    expect(h.upstream('a stream broken after its 200')).toBe(1);
  });
});
