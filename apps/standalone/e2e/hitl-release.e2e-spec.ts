import OpenAI from 'openai';
import { waitUntil } from '@svc/testing';
import { chat, HitlClient } from './hitl.helpers';
import { PROVIDER_KEY, Standalone } from './standalone.helpers';

/**
 * An approved request whose re-submission gets no provider answer the client can use (a 5xx, 408,
 * 409, 429, a dropped connection, an open breaker) gives its approval back: the next identical
 * re-submission (the SDKs retry those by themselves) is served without a second review. An answer
 * the client can use (200, or the provider's 400) keeps the approval used. Over real HTTP on the
 * whole service, with the mock provider failing on demand (docs/approvals.md).
 */
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
    // It leaves once the request is upstream (the mock holds its answer 400 ms), then the gateway's end of it settles.
    await waitUntil(() => h.upstream('left while upstream') === 1, 5_000, 'the request upstream');
    abort.abort();
    await expect(sent).rejects.toThrow();
    await waitUntil(async () => (await h.details(id)).body.used_at !== null, 5_000, 'the approval marked used');
    expect(h.upstream('left while upstream')).toBe(1);
    await h.expectConsumed(id);
    expect((await h.send(body)).status).toBe(202);
  });

  it('given back, it still serves at most once: of six re-submissions at the same moment one reaches the provider, the others are told it is in use', async () => {
    const body = chat('six at once after a release');
    const id = await h.approved(body);
    s.mock.setBehavior({ fail: { status: 503, times: 1 } });
    expect((await h.send(body)).status).toBe(503);
    await h.expectReleased(id);
    // Slow enough that the five others come while the one served is in flight.
    s.mock.setBehavior({ latencyMs: 400 });
    const answers = await Promise.all(Array.from({ length: 6 }, () => h.send(body)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    for (const refused of answers.filter((a) => a.status === 409)) expect(refused.body.error).toMatchObject({ code: 'approval_in_progress' });
    expect(h.upstream('six at once after a release')).toBe(2);
    await h.expectConsumed(id, answers.find((a) => a.status === 200)?.headers.get('x-svc-request-id') ?? '');
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
