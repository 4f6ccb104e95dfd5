import { randomBytes } from 'node:crypto';
import { asOrgId, insertLegacyWebhook, openWebhookUrl, sealWebhookUrl, SecretCipher, WEBHOOKS, WebhookEntity } from '@svc/domain';
import { QUEUES } from '@svc/events';
import { Json, OrgApi, Session } from './org-api.helpers';

const TOKEN = 'tok-Zp4qW8nRt2Lx6Vb';

/**
 * docs/webhooks-outbound.md "Receiver URLs at rest": the `webhooks` document keeps the URL sealed (it may
 * carry a credential) and answers it in full to its organization; documents stored in clear by an
 * earlier version are still served, count for `webhook_endpoint_duplicate`, and are sealed on write.
 */
describe('org API: webhook receiver URLs at rest', () => {
  let api: OrgApi;
  let owner: Session;
  beforeAll(async () => {
    api = await OrgApi.boot();
    owner = await api.loginOwner();
    api.service.runtime.events.queue(QUEUES.webhookDelivery).process(async () => undefined);
  });
  afterAll(() => api.stop());

  let counter = 0;
  const url = () => `https://8.8.8.8/at-rest/${(counter += 1)}?token=${TOKEN}`;
  const create = (body: Json) => api.call('POST', '/api/v1/admin/webhooks', { token: owner.token, body });
  const raw = (id: string) => api.repos.store.collection(WEBHOOKS).findOne({ _id: id });
  /** A webhook as an earlier version stored it: `url` in clear, no `url_hash`. */
  const insertLegacy = (target: string): Promise<WebhookEntity> =>
    insertLegacyWebhook(api.repos.store, api.service.runtime.cipher, { _id: `whk_legacy${(counter += 1)}`, org_id: owner.orgId, url: target });
  const expectDuplicate = (res: { status: number; body: Json }, conflictingId: string) =>
    expect({ status: res.status, code: res.body.error?.code, conflicting_id: res.body.error?.conflicting_id }).toEqual({
      status: 409,
      code: 'webhook_endpoint_duplicate',
      conflicting_id: conflictingId,
    });

  it('stores a registered URL sealed: the document holds neither the URL nor its token, and the API answers it in full', async () => {
    const target = url();
    const created = await create({ url: target, events: ['budget.exceeded'] });
    expect(created.status).toBe(201);
    expect(created.body.url).toBe(target);
    const stored = await raw(created.body.id);
    expect(stored).toMatchObject({ url: { key_version: 1 }, url_hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(JSON.stringify(stored)).not.toContain(TOKEN);
    expect(JSON.stringify(stored)).not.toContain('8.8.8.8');
    expect((await api.call('GET', `/api/v1/admin/webhooks/${created.body.id}`, { token: owner.token })).body.url).toBe(target);
    const listed = (await api.call('GET', '/api/v1/admin/webhooks?limit=100', { token: owner.token })).body.items as Json[];
    expect(listed.find((item) => item.id === created.body.id)?.url).toBe(target);
    // A new URL is sealed again, with a new hash.
    const moved = url();
    expect((await api.call('PATCH', `/api/v1/admin/webhooks/${created.body.id}`, { token: owner.token, body: { url: moved } })).body.url).toBe(moved);
    const after = await raw(created.body.id);
    expect(after?.url_hash).not.toBe(stored?.url_hash);
    expect(openWebhookUrl(api.service.runtime.cipher, owner.orgId, after as WebhookEntity)).toBe(moved);
  });

  it('answers 409 webhook_endpoint_duplicate across both shapes: a sealed webhook and one stored in clear', async () => {
    const sealedUrl = url();
    const sealed = (await create({ url: sealedUrl, events: ['budget.exceeded'] })).body;
    expectDuplicate(await create({ url: sealedUrl, events: ['budget.warning'] }), sealed.id);

    const legacyUrl = url();
    const legacy = await insertLegacy(legacyUrl);
    expectDuplicate(await create({ url: legacyUrl, events: ['budget.warning'] }), legacy._id);
    // Moving a sealed webhook onto the legacy one's URL, and the legacy one onto the sealed one's.
    expectDuplicate(await api.call('PATCH', `/api/v1/admin/webhooks/${sealed.id}`, { token: owner.token, body: { url: legacyUrl } }), legacy._id);
    expectDuplicate(await api.call('PUT', `/api/v1/admin/webhooks/${legacy._id}`, { token: owner.token, body: { url: sealedUrl } }), sealed.id);
    expect(await raw(legacy._id)).toEqual(legacy);
    expect((await api.call('GET', `/api/v1/admin/webhooks/${sealed.id}`, { token: owner.token })).body.url).toBe(sealedUrl);
  });

  it('serves a webhook stored in clear: listed, test-delivered by its url, sealed on its next write, deleted', async () => {
    const legacyUrl = url();
    const legacy = await insertLegacy(legacyUrl);
    const listed = (await api.call('GET', '/api/v1/admin/webhooks?limit=100', { token: owner.token })).body.items as Json[];
    expect(listed.find((item) => item.id === legacy._id)).toMatchObject({ url: legacyUrl, events: ['budget.exceeded'], status: 'active' });
    const key = await api.createKey(owner, ['webhooks:write']);
    const byUrl = await api.call('POST', '/api/v1/webhooks/deliver', { key: key.key, body: { url: legacyUrl } });
    expect(byUrl.status).toBe(202);
    expect(byUrl.body.webhook_id).toBe(legacy._id);
    const byBoth = await api.call('POST', '/api/v1/webhooks/deliver', { key: key.key, body: { webhook_id: legacy._id, url: legacyUrl } });
    expect(byBoth.status).toBe(202);

    const patched = await api.call('PATCH', `/api/v1/admin/webhooks/${legacy._id}`, { token: owner.token, body: { events: ['budget.warning'] } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id: legacy._id, url: legacyUrl, events: ['budget.warning'] });
    const stored = await raw(legacy._id);
    expect(stored).toMatchObject({ url_hash: expect.stringMatching(/^[0-9a-f]{64}$/), events: ['budget.warning'] });
    expect(JSON.stringify(stored)).not.toContain(TOKEN);
    // Sealed now: still found by its URL, still a duplicate.
    expect((await api.call('POST', '/api/v1/webhooks/deliver', { key: key.key, body: { url: legacyUrl, event_type: 'budget.warning' } })).body.webhook_id).toBe(legacy._id);
    expectDuplicate(await create({ url: legacyUrl, events: ['budget.exceeded'] }), legacy._id);

    const other = await insertLegacy(url());
    expect((await api.call('DELETE', `/api/v1/admin/webhooks/${other._id}`, { token: owner.token })).status).toBe(204);
    expect(await api.repos.webhooks.findById(asOrgId(owner.orgId), other._id)).toBeNull();
  });

  it('keeps serving a webhook whose URL was sealed under a key no longer configured: url "" until a new url seals it again', async () => {
    const created = (await create({ url: url(), events: ['budget.exceeded'] })).body;
    const retired = new SecretCipher({ current: { version: 7, key: randomBytes(32) } });
    await api.repos.webhooks.updateById(asOrgId(owner.orgId), created.id, sealWebhookUrl(retired, owner.orgId, 'https://8.8.8.8/retired'));
    const path = `/api/v1/admin/webhooks/${created.id}`;

    const listed = await api.call('GET', '/api/v1/admin/webhooks?limit=100', { token: owner.token });
    expect(listed.status).toBe(200);
    expect((listed.body.items as Json[]).find((item) => item.id === created.id)).toMatchObject({ url: '', events: ['budget.exceeded'] });
    expect(await api.call('GET', path, { token: owner.token })).toMatchObject({ status: 200, body: { id: created.id, url: '' } });
    expect(await api.call('PATCH', path, { token: owner.token, body: { events: ['budget.warning'] } })).toMatchObject({ status: 200, body: { url: '', events: ['budget.warning'] } });
    const key = await api.createKey(owner, ['webhooks:write']);
    const both = await api.call('POST', '/api/v1/webhooks/deliver', { key: key.key, body: { webhook_id: created.id, url: 'https://8.8.8.8/retired' } });
    expect({ status: both.status, code: both.body.error?.code }).toEqual({ status: 400, code: 'VALIDATION_ERROR' });

    const fresh = url();
    expect(await api.call('PATCH', path, { token: owner.token, body: { url: fresh } })).toMatchObject({ status: 200, body: { url: fresh } });
    expect(await raw(created.id)).toMatchObject({ url: { key_version: 1 } });
  });
});
