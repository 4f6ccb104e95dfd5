import { asOrgId, EncryptedValue } from '@svc/domain';
import { createEvent, EVENT_SOURCES, QueueJob, QUEUES, WebhookDeliveryJob } from '@svc/events';
import { Json, OrgApi, Session } from './org-api.helpers';

describe('org API: webhooks, test deliveries and dead letters', () => {
  let api: OrgApi;
  let owner: Session;
  let other: Session;
  const jobs: QueueJob<WebhookDeliveryJob>[] = [];
  beforeAll(async () => {
    api = await OrgApi.boot();
    owner = await api.loginOwner();
    other = await api.otherOrganization();
    // Stand in for the webhook dispatcher: collect what the org API enqueues.
    api.service.runtime.events.queue(QUEUES.webhookDelivery).process(async (job) => {
      jobs.push(job);
    });
  });
  afterAll(() => api.stop());

  const create = (session: Session, body: Json) => api.call('POST', '/api/v1/admin/webhooks', { token: session.token, body });
  let counter = 0;
  const url = () => `https://8.8.8.8/hooks/${(counter += 1)}`;
  const nextJob = async (eventId: string) => {
    for (let i = 0; i < 100; i += 1) {
      const job = jobs.find((j) => j.data.event.id === eventId);
      if (job) return job;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`no delivery job for ${eventId}`);
  };

  it('registers a webhook (201): aliases stored as catalog names, generated secret returned once and stored encrypted', async () => {
    const target = url();
    const res = await create(owner, { url: target, events: ['cost.exceeded', 'approval.required', 'guardrail.triggered'] });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^whk_/),
      url: target,
      events: ['budget.exceeded', 'approval.requested', 'guardrail.triggered'],
      status: 'active',
      created_at: expect.any(String),
      secret: expect.stringMatching(/^whsec_/),
    });
    const stored = await api.repos.webhooks.findById(asOrgId(owner.orgId), res.body.id);
    expect(JSON.stringify(stored)).not.toContain(res.body.secret);
    expect(api.service.runtime.cipher.decrypt(owner.orgId, stored?.secret as EncryptedValue)).toBe(res.body.secret);
    const got = await api.call('GET', `/api/v1/admin/webhooks/${res.body.id}`, { token: owner.token });
    expect(got.body.secret).toBeUndefined();
  });

  it('never echoes a secret the caller chose', async () => {
    const res = await create(owner, { url: url(), events: ['budget.warning'], secret: 'my-own-signing-secret-123' });
    expect(res.status).toBe(201);
    expect(res.body.secret).toBeUndefined();
    const stored = await api.repos.webhooks.findById(asOrgId(owner.orgId), res.body.id);
    expect(api.service.runtime.cipher.decrypt(owner.orgId, stored?.secret as EncryptedValue)).toBe('my-own-signing-secret-123');
  });

  it('validates events, URL scheme, secret length and unknown fields', async () => {
    const unknown = await create(owner, { url: url(), events: ['budget.exceeded', 'made.up'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { param: 'events', unknown_events: ['made.up'] } });
    const http = await create(owner, { url: 'http://8.8.8.8/hook', events: ['budget.exceeded'] });
    expect(http.status).toBe(400);
    expect(http.body.error).toMatchObject({ code: 'URL_NOT_ALLOWED', details: { param: 'url', reason: 'http_not_allowed' } });
    expect(http.body.error.message).toContain('WEBHOOK_ALLOW_HTTP=true');
    for (const body of [{ url: url() }, { url: url(), events: [] }, { url: url(), events: ['budget.exceeded'], secret: 'short' }, { events: ['budget.exceeded'] }, { url: url(), events: ['budget.exceeded'], extra: 1 }]) {
      expect((await create(owner, body)).status).toBe(400);
    }
    expect((await create(owner, { url: 'ftp://8.8.8.8/x', events: ['budget.exceeded'] })).body.error.details.reason).toBe('scheme_not_allowed');
  });

  it('refuses internal destinations (SSRF): loopback, metadata in every numeric form, private, CGNAT, IPv6 local', async () => {
    const targets = [
      'https://127.0.0.1/hook',
      'https://localhost/hook',
      'https://[::1]/hook',
      'https://[::ffff:127.0.0.1]/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://2852039166/latest',
      'https://0251.0376.0251.0376/latest',
      'https://0xa9fea9fe/latest',
      'https://10.0.0.1/hook',
      'https://172.16.5.4/hook',
      'https://192.168.0.10/hook',
      'https://100.64.1.1/hook',
      'https://[fc00::1]/hook',
      'https://[fe80::1]/hook',
      'https://0.0.0.0/hook',
      'https://168.63.129.16/machine?comp=goalstate',
      'https://[::ffff:168.63.129.16]/machine',
      'https://100.100.100.200/latest/meta-data',
      'https://192.0.0.192/opc/v2/instance',
      'https://[fd00:ec2::254]/latest/meta-data',
    ];
    for (const target of targets) {
      const res = await create(owner, { url: target, events: ['budget.exceeded'] });
      expect({ target, status: res.status, code: res.body.error.code, reason: res.body.error.details.reason }).toEqual({
        target,
        status: 400,
        code: 'URL_NOT_ALLOWED',
        reason: 'blocked_address',
      });
    }
    // Azure's wireserver is a public address, refused like the other metadata endpoints.
    const azure = (await create(owner, { url: 'https://168.63.129.16/machine', events: ['budget.exceeded'] })).body.error;
    expect([azure.message, azure.details]).toEqual([expect.stringContaining('168.63.129.16 are not allowed: the address is in a non-public range (metadata)'), { param: 'url', reason: 'blocked_address', range: 'metadata' }]);
  });

  it('answers 409 webhook_endpoint_duplicate for a second webhook on the same URL', async () => {
    const target = url();
    const first = await create(owner, { url: target, events: ['budget.exceeded'] });
    const dup = await create(owner, { url: target, events: ['budget.warning'] });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toMatchObject({ code: 'webhook_endpoint_duplicate', request_id: expect.any(String), conflicting_id: first.body.id });
    expect(dup.body.error.details).toEqual({ request_id: dup.body.error.request_id, resource_type: 'webhook', conflicting_id: first.body.id });
    expect((await create(other, { url: target, events: ['budget.exceeded'] })).status).toBe(201);
    // Moving another webhook onto the URL (PUT or PATCH) is the same conflict, and changes nothing.
    const second = (await create(owner, { url: url(), events: ['budget.exceeded'] })).body;
    for (const method of ['PUT', 'PATCH']) {
      const moved = await api.call(method, `/api/v1/admin/webhooks/${second.id}`, { token: owner.token, body: { url: target } });
      expect({ status: moved.status, code: moved.body.error?.code, conflicting_id: moved.body.error?.conflicting_id }).toEqual({ status: 409, code: 'webhook_endpoint_duplicate', conflicting_id: first.body.id });
      expect(moved.body.error.request_id).toEqual(expect.any(String));
    }
    expect((await api.call('GET', `/api/v1/admin/webhooks/${second.id}`, { token: owner.token })).body.url).toBe(second.url);
  });

  it('lists, updates partially with PUT and PATCH, re-enables, and deletes', async () => {
    const created = (await create(owner, { url: url(), events: ['budget.exceeded'], description: 'finance' })).body;
    const list = await api.call('GET', '/api/v1/admin/webhooks?limit=100', { token: owner.token });
    expect(list.body).toMatchObject({ offset: 0, limit: 100 });
    expect(list.body.items.map((w: Json) => w.id)).toContain(created.id);
    expect(list.body.items.every((w: Json) => w.secret === undefined)).toBe(true);

    const put = await api.call('PUT', `/api/v1/admin/webhooks/${created.id}`, { token: owner.token, body: { events: ['approval.required'] } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ events: ['approval.requested'], url: created.url, description: 'finance' });
    const newUrl = url();
    const patch = await api.call('PATCH', `/api/v1/admin/webhooks/${created.id}`, { token: owner.token, body: { url: newUrl } });
    expect(patch.body).toMatchObject({ url: newUrl, events: ['approval.requested'] });
    expect((await api.call('PATCH', `/api/v1/admin/webhooks/${created.id}`, { token: owner.token, body: { url: 'https://127.0.0.1/x' } })).status).toBe(400);
    expect((await api.call('PATCH', `/api/v1/admin/webhooks/${created.id}`, { token: owner.token, body: { status: 'paused' } })).status).toBe(400);

    const org = asOrgId(owner.orgId);
    for (let i = 0; i < 3; i += 1) await api.repos.webhooks.recordDeliveryFailure(org, created.id, new Date(), 3);
    expect((await api.call('GET', `/api/v1/admin/webhooks/${created.id}`, { token: owner.token })).body).toMatchObject({ status: 'disabled', consecutive_failures: 3 });
    const enabled = await api.call('PATCH', `/api/v1/admin/webhooks/${created.id}`, { token: owner.token, body: { status: 'active' } });
    expect(enabled.body).toMatchObject({ status: 'active', consecutive_failures: 0, disabled_reason: null });

    expect((await api.call('DELETE', `/api/v1/admin/webhooks/${created.id}`, { token: owner.token })).status).toBe(204);
    expect((await api.call('GET', `/api/v1/admin/webhooks/${created.id}`, { token: owner.token })).status).toBe(404);
  });

  it('refuses null on PATCH and PUT (400 naming the field) and changes nothing; description: null clears it', async () => {
    const created = (await create(owner, { url: url(), events: ['budget.exceeded'], description: 'ops', secret: 'a-secret-of-16-chars-or-more' })).body;
    const org = asOrgId(owner.orgId);
    const before = await api.repos.webhooks.findById(org, created.id);
    for (const method of ['PATCH', 'PUT']) {
      for (const field of ['url', 'events', 'secret', 'status']) {
        const res = await api.call(method, `/api/v1/admin/webhooks/${created.id}`, { token: owner.token, body: { [field]: null } });
        expect({ method, field, status: res.status, code: res.body.error?.code, param: res.body.error?.details?.param, message: res.body.error?.message }).toEqual({
          method,
          field,
          status: 400,
          code: 'VALIDATION_ERROR',
          param: field,
          message: `${field} must not be null (omit it to leave it unchanged)`,
        });
      }
    }
    expect(await api.repos.webhooks.findById(org, created.id)).toEqual(before);
    const cleared = await api.call('PATCH', `/api/v1/admin/webhooks/${created.id}`, { token: owner.token, body: { description: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ description: null, url: created.url, status: 'active' });
  });

  it('refuses a body that is not a JSON object on PATCH, PUT and create (400 naming body) and changes nothing', async () => {
    const created = (await create(owner, { url: url(), events: ['budget.exceeded'], description: 'ops' })).body;
    const org = asOrgId(owner.orgId);
    const before = await api.repos.webhooks.findById(org, created.id);
    const total = (await api.repos.webhooks.list(org, { limit: 1000 })).total;
    for (const [method, path] of [['PATCH', `/api/v1/admin/webhooks/${created.id}`], ['PUT', `/api/v1/admin/webhooks/${created.id}`], ['POST', '/api/v1/admin/webhooks']]) {
      for (const body of [null, [], [{ url: url(), events: ['budget.exceeded'] }], 'active', 5]) {
        const res = await api.call(method, path, { token: owner.token, body });
        expect({ method, body, status: res.status, code: res.body.error?.code, param: res.body.error?.details?.param, message: res.body.error?.message }).toEqual({
          method,
          body,
          status: 400,
          code: 'VALIDATION_ERROR',
          param: 'body',
          message: 'The request body must be a JSON object',
        });
      }
    }
    expect(await api.repos.webhooks.findById(org, created.id)).toEqual(before);
    expect((await api.repos.webhooks.list(org, { limit: 1000 })).total).toBe(total);
  });

  it('status: active on an active webhook keeps its failure count, so a client sending the whole object back still sees it disabled at 50', async () => {
    const created = (await create(owner, { url: url(), events: ['budget.exceeded'] })).body;
    const org = asOrgId(owner.orgId);
    const whole = { url: created.url, events: created.events, description: null, status: 'active' };
    for (let i = 1; i < 50; i += 1) {
      await api.repos.webhooks.recordDeliveryFailure(org, created.id);
      const method = i % 2 ? 'PUT' : 'PATCH';
      const res = await api.call(method, `/api/v1/admin/webhooks/${created.id}`, { token: owner.token, body: i % 3 ? whole : { status: 'active' } });
      expect({ i, status: res.status, state: res.body.status, failures: res.body.consecutive_failures }).toEqual({ i, status: 200, state: 'active', failures: i });
    }
    await api.repos.webhooks.recordDeliveryFailure(org, created.id);
    const disabled = await api.call('GET', `/api/v1/admin/webhooks/${created.id}`, { token: owner.token });
    expect(disabled.body).toMatchObject({ status: 'disabled', consecutive_failures: 50, disabled_reason: '50 consecutive failed deliveries' });
    // From disabled, status: active is a change: it re-enables and resets the count.
    const enabled = await api.call('PUT', `/api/v1/admin/webhooks/${created.id}`, { token: owner.token, body: whole });
    expect(enabled.body).toMatchObject({ status: 'active', consecutive_failures: 0, disabled_reason: null });
  });

  it('refuses null on create, test delivery and the team-chat PUT (400 naming the field); description: null on create is no description', async () => {
    const org = asOrgId(owner.orgId);
    const before = (await api.repos.webhooks.list(org, { limit: 1000 })).total;
    const target = url();
    const cases: [string, string, Json, string, string][] = [
      ['POST', '/api/v1/admin/webhooks', { url: null, events: ['budget.exceeded'] }, 'url', 'url must not be null'],
      ['POST', '/api/v1/admin/webhooks', { url: target, events: null }, 'events', 'events must not be null'],
      ['POST', '/api/v1/admin/webhooks', { url: target, events: ['budget.exceeded'], secret: null }, 'secret', 'secret must not be null (omit it for the default)'],
      ['POST', '/api/v1/webhooks/deliver', { webhook_id: null, url: target }, 'webhook_id', 'webhook_id must not be null (omit it for the default)'],
      ['POST', '/api/v1/webhooks/deliver', { url: null }, 'url', 'url must not be null (omit it for the default)'],
      ['POST', '/api/v1/webhooks/deliver', { url: target, payload: null }, 'payload', 'payload must not be null (omit it for the default)'],
      ['POST', '/api/v1/webhooks/deliver', { url: target, event_type: null }, 'event_type', 'event_type must not be null (omit it for the default)'],
      ['PUT', '/api/v1/admin/integrations/chat', { url: target, events: null }, 'events', 'events must not be null (omit it for the default)'],
      ['PUT', '/api/v1/admin/integrations/chat', { url: target, enabled: null }, 'enabled', 'enabled must not be null (omit it for the default)'],
    ];
    for (const [method, path, body, param, message] of cases) {
      const res = await api.call(method, path, { token: owner.token, body });
      expect({ path, body, status: res.status, code: res.body.error?.code, param: res.body.error?.details?.param, message: res.body.error?.message }).toEqual({
        path,
        body,
        status: 400,
        code: 'VALIDATION_ERROR',
        param,
        message,
      });
    }
    expect((await api.repos.webhooks.list(org, { limit: 1000 })).total).toBe(before);
    expect((await api.call('GET', '/api/v1/admin/integrations/chat', { token: owner.token })).status).toBe(404);
    const plain = await create(owner, { url: target, events: ['budget.exceeded'], description: null });
    expect(plain.status).toBe(201);
    expect(plain.body).toMatchObject({ description: null, secret: expect.stringMatching(/^whsec_/) });
  });

  it('lists deliveries with offset/limit and retries a dead letter onto the delivery queue', async () => {
    const webhook = (await create(owner, { url: url(), events: ['budget.exceeded'] })).body;
    const org = asOrgId(owner.orgId);
    const event = createEvent('budget.exceeded', owner.orgId, { blocked_by: 'daily_budget', daily_spent: 10, daily_budget: 10, model: 'gpt-4o', estimated_cost: 0.1, timestamp: new Date().toISOString() }, EVENT_SOURCES.gateway);
    const dead = await api.repos.webhookDeliveries.create(org, { webhook_id: webhook.id, event_id: event.id, event_type: event.type, url: webhook.url, payload: JSON.stringify(event) });
    await api.repos.webhookDeliveries.recordAttempt(org, dead._id, { status: 'failed', status_code: 500, latency_ms: 42, error: 'HTTP 500', retry_count: 5 });
    await api.repos.webhookDeliveries.markDeadLetter(org, dead._id);
    const ok = await api.repos.webhookDeliveries.create(org, { webhook_id: webhook.id, event_id: 'evt_ok', event_type: event.type, url: webhook.url, payload: JSON.stringify(event) });

    const page = await api.call('GET', `/api/v1/admin/webhooks/${webhook.id}/deliveries?offset=0&limit=1`, { token: owner.token });
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ total: 2, offset: 0, limit: 1 });
    expect(page.body.items).toHaveLength(1);
    const all = await api.call('GET', `/api/v1/admin/webhooks/${webhook.id}/deliveries`, { token: owner.token });
    expect(all.body.items.find((d: Json) => d.id === dead._id)).toMatchObject({ status: 'dead_letter', status_code: 500, latency_ms: 42, retry_count: 5, dead_letter: true });
    expect((await api.call('GET', `/api/v1/admin/webhooks/${webhook.id}/deliveries?limit=101`, { token: owner.token })).status).toBe(400);

    const notDead = await api.call('POST', `/api/v1/admin/webhooks/${webhook.id}/deliveries/${ok._id}/retry`, { token: owner.token });
    expect(notDead.status).toBe(409);
    const retry = await api.call('POST', `/api/v1/admin/webhooks/${webhook.id}/deliveries/${dead._id}/retry`, { token: owner.token });
    expect(retry.status).toBe(202);
    expect(retry.body).toMatchObject({ status: 'queued', webhook_id: webhook.id, event_id: event.id, delivery_id: dead._id });
    const job = await nextJob(event.id);
    expect(job.data).toEqual({ event, webhookId: webhook.id, attempt: 1, retryOfDeliveryId: dead._id });
    expect(job.maxAttempts).toBe(6);
    const requeued = await api.repos.webhookDeliveries.findById(org, dead._id);
    expect(requeued).toMatchObject({ status: 'pending', dead_letter: false });
    expect((await api.call('POST', `/api/v1/admin/webhooks/${webhook.id}/deliveries/dlv_missing/retry`, { token: owner.token })).status).toBe(404);
  });

  it('dead-letter retry takes no body: a field or a non-object body is 400 and queues nothing; none, an empty body or {} is taken', async () => {
    const webhook = (await create(owner, { url: url(), events: ['budget.exceeded'] })).body;
    const org = asOrgId(owner.orgId);
    const event = createEvent('budget.exceeded', owner.orgId, { blocked_by: 'daily_budget', daily_spent: 10, daily_budget: 10, model: 'gpt-4o', estimated_cost: 0.1, timestamp: new Date().toISOString() }, EVENT_SOURCES.gateway);
    const dead = await api.repos.webhookDeliveries.create(org, { webhook_id: webhook.id, event_id: event.id, event_type: event.type, url: webhook.url, payload: JSON.stringify(event) });
    await api.repos.webhookDeliveries.markDeadLetter(org, dead._id);
    const path = `/api/v1/admin/webhooks/${webhook.id}/deliveries/${dead._id}/retry`;
    const cases: [unknown, string][] = [[{ force: true }, 'force'], [{ delivery_id: dead._id }, 'delivery_id'], [[1], 'body'], ['now', 'body'], [5, 'body']];
    for (const [body, param] of cases) {
      const res = await api.call('POST', path, { token: owner.token, body });
      expect({ body, status: res.status, code: res.body.error?.code, param: res.body.error?.details?.param }).toEqual({ body, status: 400, code: 'VALIDATION_ERROR', param });
    }
    expect(await api.repos.webhookDeliveries.findById(org, dead._id)).toMatchObject({ status: 'dead_letter', dead_letter: true });
    expect(jobs.some((job) => job.data.event.id === event.id)).toBe(false);
    expect((await api.call('POST', path, { token: owner.token, headers: { 'content-type': 'application/json' } })).status).toBe(202);
    await nextJob(event.id);
    await api.repos.webhookDeliveries.markDeadLetter(org, dead._id);
    expect((await api.call('POST', path, { token: owner.token, body: {} })).status).toBe(202);
  });

  it('sends a test delivery authenticated with X-API-Key, only to registered webhooks', async () => {
    const webhook = (await create(owner, { url: url(), events: ['guardrail.triggered', 'budget.warning'] })).body;
    const key = await api.createKey(owner, ['webhooks:write']);
    const res = await api.call('POST', '/api/v1/webhooks/deliver', { key: key.key, body: { webhook_id: webhook.id, payload: { hello: 'world' } } });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: 'queued', webhook_id: webhook.id, event_type: 'guardrail.triggered', event_id: expect.stringMatching(/^evt_/) });
    const job = await nextJob(res.body.event_id);
    expect(job.data.event).toMatchObject({ type: 'guardrail.triggered', orgid: owner.orgId, source: EVENT_SOURCES.orgApi, data: { hello: 'world' } });
    expect(job.data.webhookId).toBe(webhook.id);

    const byUrl = await api.call('POST', '/api/v1/webhooks/deliver', { key: key.key, body: { url: webhook.url, event_type: 'budget.warning' } });
    expect(byUrl.status).toBe(202);
    expect((await nextJob(byUrl.body.event_id)).data.event.data).toMatchObject({ test: true });

    expect((await api.call('POST', '/api/v1/webhooks/deliver', { key: key.key, body: { url: 'https://8.8.4.4/unregistered' } })).status).toBe(404);
    expect((await api.call('POST', '/api/v1/webhooks/deliver', { key: key.key, body: {} })).status).toBe(400);
    expect((await api.call('POST', '/api/v1/webhooks/deliver', { body: { webhook_id: webhook.id } })).status).toBe(401);
    const reader = await api.createKey(owner, ['webhooks:read']);
    expect((await api.call('POST', '/api/v1/webhooks/deliver', { key: reader.key, body: { webhook_id: webhook.id } })).status).toBe(403);

    // A disabled webhook gets nothing, like a dead-letter retry: 409 until it is re-enabled.
    expect((await api.call('PATCH', `/api/v1/admin/webhooks/${webhook.id}`, { token: owner.token, body: { status: 'disabled' } })).body.status).toBe('disabled');
    for (const body of [{ webhook_id: webhook.id }, { url: webhook.url }]) {
      const disabled = await api.call('POST', '/api/v1/webhooks/deliver', { key: key.key, body });
      expect({ body, status: disabled.status, code: disabled.body.error?.code }).toEqual({ body, status: 409, code: 'WEBHOOK_DISABLED' });
    }
    await api.call('PATCH', `/api/v1/admin/webhooks/${webhook.id}`, { token: owner.token, body: { status: 'active' } });
    expect((await api.call('POST', '/api/v1/webhooks/deliver', { key: key.key, body: { webhook_id: webhook.id } })).status).toBe(202);
  });

  it('roles: a Member lists but cannot create, change or delete webhooks', async () => {
    const member = await api.userWithRole(owner.orgId, 'Member');
    const webhook = (await create(owner, { url: url(), events: ['budget.exceeded'] })).body;
    expect((await api.call('GET', '/api/v1/admin/webhooks', { token: member.token })).status).toBe(200);
    const denied = await create(member, { url: url(), events: ['budget.exceeded'] });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('FORBIDDEN');
    expect((await api.call('PATCH', `/api/v1/admin/webhooks/${webhook.id}`, { token: member.token, body: { events: ['budget.warning'] } })).status).toBe(403);
    expect((await api.call('DELETE', `/api/v1/admin/webhooks/${webhook.id}`, { token: member.token })).status).toBe(403);
    expect((await api.call('PUT', '/api/v1/admin/integrations/chat', { token: member.token, body: { url: url() } })).status).toBe(403);
  });

  it("answers 404 for another organization's webhook ids on every route", async () => {
    const theirs = (await create(other, { url: url(), events: ['budget.exceeded'] })).body;
    const org = asOrgId(other.orgId);
    const delivery = await api.repos.webhookDeliveries.create(org, { webhook_id: theirs.id, event_id: 'evt_x', event_type: 'budget.exceeded', url: theirs.url, payload: '{}' });
    await api.repos.webhookDeliveries.markDeadLetter(org, delivery._id);
    const routes: [string, string, Json | undefined][] = [
      ['GET', `/api/v1/admin/webhooks/${theirs.id}`, undefined],
      ['PUT', `/api/v1/admin/webhooks/${theirs.id}`, { events: ['budget.warning'] }],
      ['PATCH', `/api/v1/admin/webhooks/${theirs.id}`, { status: 'active' }],
      ['DELETE', `/api/v1/admin/webhooks/${theirs.id}`, undefined],
      ['GET', `/api/v1/admin/webhooks/${theirs.id}/deliveries`, undefined],
      ['POST', `/api/v1/admin/webhooks/${theirs.id}/deliveries/${delivery._id}/retry`, undefined],
      ['POST', '/api/v1/webhooks/deliver', { webhook_id: theirs.id }],
    ];
    for (const [method, path, body] of routes) {
      const res = await api.call(method, path, { token: owner.token, body });
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 404 });
    }
    expect((await api.call('GET', `/api/v1/admin/webhooks/${theirs.id}`, { token: other.token })).body.events).toEqual(['budget.exceeded']);
  });

  it('refuses a query parameter a webhook or team-chat route does not take (400 naming it), changing and queueing nothing', async () => {
    const mine = (await create(owner, { url: url(), events: ['budget.exceeded'] })).body;
    const org = asOrgId(owner.orgId);
    const delivery = await api.repos.webhookDeliveries.create(org, { webhook_id: mine.id, event_id: 'evt_query', event_type: 'budget.exceeded', url: 'https://8.8.8.8/hooks/q', payload: '{}' });
    await api.repos.webhookDeliveries.markDeadLetter(org, delivery._id);
    const chatUrl = 'https://8.8.8.8/services/T000/B000/querypart';
    const routes: [string, string, Json | undefined][] = [
      ['POST', '/api/v1/admin/webhooks', { url: url(), events: ['budget.exceeded'] }],
      ['GET', `/api/v1/admin/webhooks/${mine.id}`, undefined],
      ['PUT', `/api/v1/admin/webhooks/${mine.id}`, { events: ['budget.warning'] }],
      ['PATCH', `/api/v1/admin/webhooks/${mine.id}`, { events: ['budget.warning'] }],
      ['DELETE', `/api/v1/admin/webhooks/${mine.id}`, undefined],
      ['POST', `/api/v1/admin/webhooks/${mine.id}/deliveries/${delivery._id}/retry`, undefined],
      ['POST', '/api/v1/webhooks/deliver', { webhook_id: mine.id }],
      ['PUT', '/api/v1/admin/integrations/chat', { url: chatUrl }],
      ['GET', '/api/v1/admin/integrations/chat', undefined],
      ['DELETE', '/api/v1/admin/integrations/chat', undefined],
    ];
    const queued = jobs.length;
    const webhooksBefore = await api.repos.webhooks.count(org);
    for (const [method, path, body] of routes) {
      for (const [name, value] of [['org_id', other.orgId], ['colour', 'red']]) {
        const res = await api.call(method, `${path}?${name}=${value}`, { token: owner.token, body });
        expect({ method, path, status: res.status, error: res.body.error }).toEqual({
          method,
          path,
          status: 400,
          error: { code: 'VALIDATION_ERROR', message: `property ${name} should not exist`, details: { param: name } },
        });
      }
    }
    expect(await api.repos.webhooks.count(org)).toBe(webhooksBefore);
    expect((await api.call('GET', `/api/v1/admin/webhooks/${mine.id}`, { token: owner.token })).body.events).toEqual(['budget.exceeded']);
    expect(await api.repos.webhookDeliveries.findById(org, delivery._id)).toMatchObject({ status: 'dead_letter' });
    expect(await api.repos.chatIntegrations.get(org)).toBeNull();
    expect(jobs.length).toBe(queued);
  });
});
