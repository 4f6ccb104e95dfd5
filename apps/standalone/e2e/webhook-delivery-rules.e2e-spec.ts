import { hmacSignatureValid } from '@svc/testing';
import { Json, Tenant, WEBHOOK_SECRET, WebhookWorld } from './webhook-e2e.helpers';

/** A Redis database of this file's own (docs: WebhookWorld.boot); the dispatcher's e2e specs use 9 to 14. */
const REDIS_DB = 8;
const BASE_MS = 100;
const TIMEOUT_MS = 700;

/**
 * SPEC.md "Webhook delivery" rules seen by a real receiver through the one-process service, with
 * the schedule scaled by WEBHOOK_RETRY_BASE_MS (DECISIONS.md) and the 10 s deadline by
 * WEBHOOK_TIMEOUT_MS: retries after 1, 2, 4, 8, 16 x the base on a non-2xx or a slow answer, the
 * same signed body each time, a dead letter after the sixth attempt that a manual retry delivers;
 * and bad input to the webhook routes answered 400 (413 for an oversized body) in the organization
 * API's error format, never a 500.
 */
describe('webhook delivery rules and webhook route input, outside in', () => {
  let world: WebhookWorld;
  let tenant: Tenant;
  beforeAll(async () => {
    world = await WebhookWorld.boot(REDIS_DB, { WEBHOOK_RETRY_BASE_MS: String(BASE_MS), WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS), BUDGET_ALERT_CHECK_INTERVAL_MS: '200' });
    tenant = await world.tenant('/rules/first', ['budget.exceeded']);
  });
  afterAll(() => world?.stop());

  const org = (method: string, path: string, body?: unknown, headers: Record<string, string> = tenant.bearer) => world.call('org-api', method, path, headers, body);
  const register = async (path: string) => (await org('POST', '/api/v1/admin/webhooks', { url: world.receiver.url(path), events: ['budget.exceeded'], secret: WEBHOOK_SECRET })).body.id as string;
  const deliveries = async (webhookId: string) => (await org('GET', `/api/v1/admin/webhooks/${webhookId}/deliveries`)).body.items as Json[];

  it('retries a non-2xx after 1, 2, 4, 8 and 16 x the base, then dead-letters it; a manual retry delivers the same event', async () => {
    const webhookId = await register('/rules/failing');
    world.receiver.behave('/rules/failing', () => ({ status: 503 }));
    const queued = await org('POST', '/api/v1/webhooks/deliver', { webhook_id: webhookId });
    expect(queued.status).toBe(202);

    const attempts = await world.receiver.waitFor('/rules/failing', 6, 15_000);
    await new Promise((resolve) => setTimeout(resolve, 16 * BASE_MS * 2));
    expect(world.receiver.on('/rules/failing')).toHaveLength(6);
    const gaps = attempts.slice(1).map((attempt, i) => attempt.at - attempts[i].at);
    [1, 2, 4, 8, 16].forEach((factor, i) => {
      expect(gaps[i]).toBeGreaterThanOrEqual(factor * BASE_MS - 5);
      expect(gaps[i]).toBeLessThan(factor * BASE_MS + 1_000);
    });
    // A test delivery: the organization API's event, of the webhook's first type, its data a sample marked test.
    expect(JSON.parse(attempts[0].raw.toString())).toMatchObject({ id: queued.body.event_id, type: 'budget.exceeded', source: '/svc/org-api', orgid: tenant.orgId, data: { test: true } });
    // The same event, byte for byte, each time, each signed.
    expect(new Set(attempts.map((attempt) => attempt.raw.toString())).size).toBe(1);
    expect(attempts.every((attempt) => hmacSignatureValid(attempt, WEBHOOK_SECRET))).toBe(true);
    expect(new Set(attempts.map((attempt) => attempt.headers['x-webhook-timestamp'])).size).toBe(1);

    const [dead] = await deliveries(webhookId);
    expect(dead).toMatchObject({ event_id: queued.body.event_id, status: 'dead_letter', dead_letter: true, status_code: 503, retry_count: 5, latency_ms: expect.any(Number), error: 'HTTP 503', next_attempt_at: null, delivered_at: null });

    world.receiver.behave('/rules/failing', () => ({ status: 200 }));
    const retried = await org('POST', `/api/v1/admin/webhooks/${webhookId}/deliveries/${dead.id}/retry`);
    expect(retried.status).toBe(202);
    const [, , , , , , again] = await world.receiver.waitFor('/rules/failing', 7);
    expect(again.raw.toString()).toBe(attempts[0].raw.toString());
    expect(hmacSignatureValid(again, WEBHOOK_SECRET)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await deliveries(webhookId))[0]).toMatchObject({ id: dead.id, status: 'succeeded', dead_letter: false, status_code: 200, retry_count: 6 });
  }, 30_000);

  it('counts an answer slower than the deadline as failed and retries it after the base delay', async () => {
    const webhookId = await register('/rules/slow');
    world.receiver.behave('/rules/slow', (_request, nth) => ({ status: 200, delayMs: nth === 1 ? TIMEOUT_MS * 2 : 0 }));
    await org('POST', '/api/v1/webhooks/deliver', { webhook_id: webhookId });
    const [first, second] = await world.receiver.waitFor('/rules/slow', 2);
    expect(second.at - first.at).toBeGreaterThanOrEqual(TIMEOUT_MS + BASE_MS - 5);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await deliveries(webhookId))[0]).toMatchObject({ status: 'succeeded', retry_count: 1, status_code: 200 });
  });

  it("delivers a named budget's webhook alert (budget.warning from the organization API) with budget_id and budget_name", async () => {
    const spender = await world.tenant('/rules/named-budget', ['budget.warning']);
    const budget = await world.call('org-api', 'POST', '/api/v1/admin/costs/budgets', spender.bearer, {
      name: 'Tiny daily',
      type: 'daily',
      limit: 0.00002,
      alerts: [{ threshold: 10, channels: ['webhook'] }],
    });
    expect(budget.status).toBe(200);
    expect((await world.chat(spender, 'hello', 'gpt-4o-mini', 20)).status).toBe(200);
    const [delivery] = await world.receiver.waitFor('/rules/named-budget', 1, 15_000);
    expect(hmacSignatureValid(delivery, WEBHOOK_SECRET)).toBe(true);
    const event = JSON.parse(delivery.raw.toString()) as Json;
    expect(event).toMatchObject({ type: 'budget.warning', source: '/svc/org-api', orgid: spender.orgId });
    expect(event.data).toEqual({
      budget_type: 'daily',
      threshold_pct: 10,
      spent: expect.any(Number),
      budget: 0.00002,
      utilization_pct: expect.any(Number),
      timestamp: expect.any(String),
      budget_id: budget.body.id,
      budget_name: 'Tiny daily',
    });
  }, 30_000);

  const BAD_CREATES: [string, number, string, unknown, Json][] = [
    ['a javascript: URL', 400, 'URL_NOT_ALLOWED', { url: 'javascript:alert(1)', events: ['budget.exceeded'] }, { param: 'url', reason: 'scheme_not_allowed' }],
    ['a file: URL', 400, 'URL_NOT_ALLOWED', { url: 'file:///etc/passwd', events: ['budget.exceeded'] }, { param: 'url', reason: 'scheme_not_allowed' }],
    ['an ftp: URL', 400, 'URL_NOT_ALLOWED', { url: 'ftp://8.8.8.8/x', events: ['budget.exceeded'] }, { param: 'url', reason: 'scheme_not_allowed' }],
    ['not a URL', 400, 'URL_NOT_ALLOWED', { url: 'not a url', events: ['budget.exceeded'] }, { param: 'url', reason: 'invalid_url' }],
    ['a port out of range', 400, 'URL_NOT_ALLOWED', { url: 'https://8.8.8.8:99999/x', events: ['budget.exceeded'] }, { param: 'url', reason: 'invalid_url' }],
    ['user info in the URL', 400, 'URL_NOT_ALLOWED', { url: 'https://user:pw@8.8.8.8/x', events: ['budget.exceeded'] }, { param: 'url', reason: 'credentials_in_url' }],
    ['a host that does not resolve', 400, 'URL_NOT_ALLOWED', { url: 'https://no-such-host.invalid/x', events: ['budget.exceeded'] }, { param: 'url', reason: 'unresolvable' }],
    ['a URL longer than 2048', 400, 'VALIDATION_ERROR', { url: `https://8.8.8.8/${'a'.repeat(2100)}`, events: ['budget.exceeded'] }, { param: 'url' }],
    ['a URL that is a number', 400, 'VALIDATION_ERROR', { url: 123, events: ['budget.exceeded'] }, { param: 'url' }],
    ['an unknown event type', 400, 'VALIDATION_ERROR', { url: 'https://8.8.8.8/x', events: ['budget.exceeded', 'made.up'] }, { param: 'events', unknown_events: ['made.up'] }],
    ['a wildcard event type', 400, 'VALIDATION_ERROR', { url: 'https://8.8.8.8/x', events: ['cost_anomaly.*'] }, { param: 'events', unknown_events: ['cost_anomaly.*'] }],
    ['events as a string', 400, 'VALIDATION_ERROR', { url: 'https://8.8.8.8/x', events: 'budget.exceeded' }, { param: 'events' }],
    ['events of numbers', 400, 'VALIDATION_ERROR', { url: 'https://8.8.8.8/x', events: [1, 2] }, { param: 'events' }],
    ['no events', 400, 'VALIDATION_ERROR', { url: 'https://8.8.8.8/x', events: [] }, { param: 'events' }],
    ['a secret that is a number', 400, 'VALIDATION_ERROR', { url: 'https://8.8.8.8/x', events: ['budget.exceeded'], secret: 1234567890123456 }, { param: 'secret' }],
    ['a short secret', 400, 'VALIDATION_ERROR', { url: 'https://8.8.8.8/x', events: ['budget.exceeded'], secret: 'short' }, { param: 'secret' }],
    ['an unknown field', 400, 'VALIDATION_ERROR', { url: 'https://8.8.8.8/x', events: ['budget.exceeded'], colour: 'red' }, { param: 'colour' }],
    ['a body that is an array', 400, 'VALIDATION_ERROR', [1, 2], { param: 'body' }],
    ['a body nested 3000 deep', 400, 'VALIDATION_ERROR', `{"url":"https://8.8.8.8/x","events":["budget.exceeded"],"description":${'['.repeat(3000)}${']'.repeat(3000)}}`, {}],
    ['a body that is not JSON', 400, 'INVALID_JSON', '{"url": ', {}],
    ['a body over 1 MB', 413, 'PAYLOAD_TOO_LARGE', { url: 'https://8.8.8.8/x', events: ['budget.exceeded'], description: 'x'.repeat(1_100_000) }, {}],
  ];

  it.each(BAD_CREATES)('POST /api/v1/admin/webhooks with %s: %i %s in the organization API format', async (_what, status, code, body, details) => {
    const res = await org('POST', '/api/v1/admin/webhooks', body);
    expect({ status: res.status, code: res.body.error?.code }).toEqual({ status, code });
    expect(res.body.error).toEqual({ code, message: expect.any(String), details: expect.objectContaining(details) });
    expect(res.body.error.message.length).toBeGreaterThan(5);
  });

  it('refuses bad updates, test deliveries and queries on the webhook routes with 400 naming the field; a foreign or unknown id is 404', async () => {
    const webhookId = await register('/rules/input');
    const cases: [string, string, unknown, number, string, string | undefined][] = [
      ['PATCH', `/api/v1/admin/webhooks/${webhookId}`, { url: 'gopher://8.8.8.8/x' }, 400, 'URL_NOT_ALLOWED', 'url'],
      ['PUT', `/api/v1/admin/webhooks/${webhookId}`, { events: ['nope'] }, 400, 'VALIDATION_ERROR', 'events'],
      ['PATCH', `/api/v1/admin/webhooks/${webhookId}`, { status: 'paused' }, 400, 'VALIDATION_ERROR', 'status'],
      ['PATCH', `/api/v1/admin/webhooks/${webhookId}`, { url: null }, 400, 'VALIDATION_ERROR', 'url'],
      ['PATCH', `/api/v1/admin/webhooks/${webhookId}`, 'null', 400, 'VALIDATION_ERROR', 'body'],
      ['PATCH', '/api/v1/admin/webhooks/whk_unknown', { events: ['budget.exceeded'] }, 404, 'NOT_FOUND', undefined],
      ['POST', '/api/v1/webhooks/deliver', {}, 400, 'VALIDATION_ERROR', 'webhook_id'],
      ['POST', '/api/v1/webhooks/deliver', { webhook_id: 5 }, 400, 'VALIDATION_ERROR', 'webhook_id'],
      ['POST', '/api/v1/webhooks/deliver', { webhook_id: webhookId, payload: 'text' }, 400, 'VALIDATION_ERROR', 'payload'],
      ['POST', '/api/v1/webhooks/deliver', { webhook_id: webhookId, event_type: 'made.up' }, 400, 'VALIDATION_ERROR', 'event_type'],
      ['POST', '/api/v1/webhooks/deliver', { webhook_id: webhookId, url: 'https://8.8.8.8/other' }, 400, 'VALIDATION_ERROR', 'url'],
      ['GET', '/api/v1/admin/webhooks?limit=abc', undefined, 400, 'VALIDATION_ERROR', 'limit'],
      ['GET', '/api/v1/admin/webhooks?limit=101', undefined, 400, 'VALIDATION_ERROR', 'limit'],
      ['GET', `/api/v1/admin/webhooks/${webhookId}/deliveries?offset=-1`, undefined, 400, 'VALIDATION_ERROR', 'offset'],
      ['POST', `/api/v1/admin/webhooks/${webhookId}/deliveries/dlv_unknown/retry`, undefined, 404, 'NOT_FOUND', undefined],
    ];
    for (const [method, path, body, status, code, param] of cases) {
      const res = await org(method, path, body);
      expect({ method, path, status: res.status, code: res.body.error?.code, param: res.body.error?.details?.param }).toEqual({ method, path, status, code, param });
    }
    // X-API-Key with a key that only proxies: 403 naming the scopes, nothing queued.
    const proxyOnly = await org('POST', '/api/v1/platform/api-keys', { name: 'proxy-only', scopes: ['gateway:write'] });
    const forbidden = await org('POST', '/api/v1/webhooks/deliver', { webhook_id: webhookId }, { 'X-API-Key': String(proxyOnly.body.key) });
    expect({ status: forbidden.status, code: forbidden.body.error?.code, details: forbidden.body.error?.details }).toEqual({
      status: 403,
      code: 'FORBIDDEN',
      details: { required_scopes: ['webhooks:write', 'admin:write'] },
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(world.receiver.on('/rules/input')).toHaveLength(0);
    // The webhook is as registered: none of the refused updates changed it.
    expect((await org('GET', `/api/v1/admin/webhooks/${webhookId}`)).body).toMatchObject({ url: world.receiver.url('/rules/input'), events: ['budget.exceeded'], status: 'active' });
  });
});
