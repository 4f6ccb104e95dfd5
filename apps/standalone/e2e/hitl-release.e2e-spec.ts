import OpenAI from 'openai';
import { Json, PROVIDER_KEY, Reply, Standalone } from './standalone.helpers';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const chat = (content: string, extra: Json = {}) => ({ model: 'gpt-4o-mini', max_tokens: 10, messages: [{ role: 'user' as const, content }], ...extra });

/**
 * An approved request whose re-submission gets no provider answer the client can use (a 5xx, 408,
 * 409, 429, a dropped connection, an open breaker) gives its approval back: the next identical
 * re-submission (the SDKs retry those by themselves) is served without a second review. An answer
 * the client can use (200, or the provider's 400) keeps the approval used. Over real HTTP on the
 * whole service, with the mock provider failing on demand (docs/governance.md "HITL").
 */
class HitlClient {
  requester = '';
  reviewer = '';

  constructor(readonly s: Standalone) {}

  async init(): Promise<void> {
    this.requester = await this.newKey(['gateway:write', 'gateway:read']);
    this.reviewer = await this.newKey(['admin:read', 'admin:write']);
    expect((await this.s.call('gateway', 'POST', '/gateway/admin/policies', { body: { hitl_cost_threshold: 0.0000001 } })).status).toBeLessThan(300);
  }

  private async newKey(scopes: string[]): Promise<string> {
    const res = await this.s.call('org-api', 'POST', '/api/v1/platform/api-keys', { body: { name: `k-${Math.random().toString(36).slice(2)}`, scopes } });
    expect(res.status).toBe(201);
    return res.body.key as string;
  }

  async gw(method: string, path: string, key: string, body?: unknown): Promise<Reply> {
    const headers = { 'X-SVC-API-Key': key, 'X-Provider-Key': PROVIDER_KEY, ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
    const res = await fetch(`${this.s.service.urls.gateway}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as Json, headers: res.headers };
  }

  send(body: Json): Promise<Reply> {
    return this.gw('POST', '/v1/chat/completions', this.requester, body);
  }

  details(id: string): Promise<Reply> {
    return this.gw('GET', `/gateway/admin/approvals/${id}`, this.reviewer);
  }

  /** Held (202), then approved by the reviewer: the approval's id. */
  async approved(body: Json): Promise<string> {
    const pending = await this.send(body);
    expect(pending.status).toBe(202);
    const id = pending.body.approval_id as string;
    expect((await this.gw('POST', `/gateway/admin/approvals/${id}/approve`, this.reviewer, {})).status).toBe(200);
    return id;
  }

  /** Requests of the mock provider whose body carries `marker`. */
  upstream(marker: string): number {
    return this.s.mock.requests.filter((r) => JSON.stringify(r.body ?? '').includes(marker)).length;
  }

  /** The approval is approved and unused again (given back). */
  async expectReleased(id: string): Promise<void> {
    expect((await this.details(id)).body).toMatchObject({ status: 'approved', consumed_at: null });
  }

  async expectConsumed(id: string): Promise<void> {
    expect((await this.details(id)).body).toMatchObject({ status: 'approved', consumed_at: expect.stringMatching(ISO) });
  }
}

describe('HITL: an approval is given back when its re-submission gets no usable provider answer', () => {
  let s: Standalone;
  let h: HitlClient;

  beforeAll(async () => {
    // The breaker stays closed here however many failures the tests inject (it has its own block below).
    s = await Standalone.boot({ email: 'hitl-release@example.com', password: 'hitl-release-password-1' }, 'enterprise', { CIRCUIT_BREAKER_FAILURE_THRESHOLD: '1000' });
    s.mock.configure({ record: true });
    h = new HitlClient(s);
    await h.init();
  });
  afterAll(() => s.stop());
  afterEach(() => s.mock.setBehavior(null));

  it('a provider 503 gives the approval back: the next identical re-submission is served with no second approval, then it is used', async () => {
    const body = chat('503 then served');
    const id = await h.approved(body);
    s.mock.setBehavior({ fail: { status: 503, times: 1 } });
    const failed = await h.send(body);
    expect(failed.status).toBe(503);
    expect(failed.headers.get('x-svc-approval-id')).toBeNull();
    await h.expectReleased(id);

    const served = await h.send(body);
    expect(served.status).toBe(200);
    expect(served.body.choices[0].message.content).toBe('mock reply to: 503 then served');
    expect(h.upstream('503 then served')).toBe(2);
    await h.expectConsumed(id);
    // Used by an answer: the next one is held under a new approval.
    const again = await h.send(body);
    expect(again.status).toBe(202);
    expect(again.body.approval_id).not.toBe(id);
    expect(h.upstream('503 then served')).toBe(2);
  });

  it('the OpenAI SDK retrying a 503 by itself gets the completion, never the 202 body', async () => {
    const body = chat('sdk retries the 503');
    const id = await h.approved(body);
    s.mock.setBehavior({ fail: { status: 503, times: 1 } });
    const client = new OpenAI({ apiKey: h.requester, baseURL: `${s.service.urls.gateway}/v1`, defaultHeaders: { 'X-Provider-Key': PROVIDER_KEY }, maxRetries: 2 });
    const completion = await client.chat.completions.create(body);
    expect(completion).not.toHaveProperty('approval_id');
    expect(completion.choices[0].message.content).toBe('mock reply to: sdk retries the 503');
    expect(h.upstream('sdk retries the 503')).toBe(2);
    await h.expectConsumed(id);
  });

  it.each([
    ['429', { fail: { status: 429, times: 1 } }, 429],
    ['408', { fail: { status: 408, times: 1 } }, 408],
    ['500', { fail: { status: 500, times: 1 } }, 500],
    ['a dropped connection', { drop: { times: 1 } }, 502],
  ])('%s from the provider gives it back as well', async (name, behavior, status) => {
    const body = chat(`given back after ${name}`);
    const id = await h.approved(body);
    s.mock.setBehavior(behavior);
    expect((await h.send(body)).status).toBe(status);
    await h.expectReleased(id);
    expect((await h.send(body)).status).toBe(200);
    await h.expectConsumed(id);
  });

  it('an answer the client can use keeps it used: a 200, and the provider\'s own 400', async () => {
    const ok = chat('a 200 uses it');
    const okId = await h.approved(ok);
    expect((await h.send(ok)).status).toBe(200);
    await h.expectConsumed(okId);
    expect((await h.send(ok)).status).toBe(202);

    const bad = chat('a provider 400 uses it');
    const badId = await h.approved(bad);
    s.mock.setBehavior({ fail: { status: 400, times: 1 } });
    const refused = await h.send(bad);
    expect(refused.status).toBe(400);
    await h.expectConsumed(badId);
    const held = await h.send(bad);
    expect(held.status).toBe(202);
    expect(held.body.approval_id).not.toBe(badId);
    expect(h.upstream('a provider 400 uses it')).toBe(1);
  });

  it('a client that leaves after the request went upstream keeps it used (the provider may have served it)', async () => {
    const body = chat('left while upstream');
    const id = await h.approved(body);
    s.mock.setBehavior({ latencyMs: 400 });
    const abort = new AbortController();
    const sent = fetch(`${s.service.urls.gateway}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'X-SVC-API-Key': h.requester, 'X-Provider-Key': PROVIDER_KEY, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: abort.signal,
    });
    await new Promise((resolve) => setTimeout(resolve, 150));
    abort.abort();
    await expect(sent).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(h.upstream('left while upstream')).toBe(1);
    await h.expectConsumed(id);
    expect((await h.send(body)).status).toBe(202);
  });

  it('given back, it still serves at most once: of six re-submissions at the same moment exactly one reaches the provider', async () => {
    const body = chat('six at once after a release');
    const id = await h.approved(body);
    s.mock.setBehavior({ fail: { status: 503, times: 1 } });
    expect((await h.send(body)).status).toBe(503);
    await h.expectReleased(id);
    const answers = await Promise.all(Array.from({ length: 6 }, () => h.send(body)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 202, 202, 202, 202, 202]);
    expect(h.upstream('six at once after a release')).toBe(2);
    await h.expectConsumed(id);
  });

  it('an approval in use is not served to a second request while the first is in flight, and the first one failing gives it back only once', async () => {
    const body = chat('in flight while another comes');
    const id = await h.approved(body);
    s.mock.setBehavior({ latencyMs: 400, fail: { status: 503, times: 1 } });
    const first = h.send(body);
    await new Promise((resolve) => setTimeout(resolve, 150));
    const second = await h.send(body);
    expect(second.status).toBe(202);
    expect(second.body.approval_id).not.toBe(id);
    expect((await first).status).toBe(503);
    expect(h.upstream('in flight while another comes')).toBe(1);
    await h.expectReleased(id);
  });
});

describe('HITL: an open circuit breaker gives the approval back', () => {
  let s: Standalone;
  let h: HitlClient;

  beforeAll(async () => {
    s = await Standalone.boot({ email: 'hitl-breaker@example.com', password: 'hitl-breaker-password-1' }, 'enterprise', {
      CIRCUIT_BREAKER_FAILURE_THRESHOLD: '1',
      CIRCUIT_BREAKER_RECOVERY_SECONDS: '1',
    });
    s.mock.configure({ record: true });
    h = new HitlClient(s);
    await h.init();
  });
  afterAll(() => s.stop());

  it('503 circuit_breaker_open leaves the approval approved; once the breaker lets a probe through, the same request is served', async () => {
    const body = chat('breaker open after approval');
    const id = await h.approved(body);
    s.mock.setBehavior({ fail: { status: 503, times: 1 } });
    expect((await h.send(body)).status).toBe(503);
    const open = await h.send(body);
    expect(open.status).toBe(503);
    expect(open.body.error).toMatchObject({ code: 'circuit_breaker_open' });
    await h.expectReleased(id);
    expect(h.upstream('breaker open after approval')).toBe(1);

    await new Promise((resolve) => setTimeout(resolve, 1100));
    const served = await h.send(body);
    expect(served.status).toBe(200);
    expect(h.upstream('breaker open after approval')).toBe(2);
    await h.expectConsumed(id);
  });
});
