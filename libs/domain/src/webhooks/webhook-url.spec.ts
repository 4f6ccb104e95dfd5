import { randomBytes } from 'node:crypto';
import { SecretCipher } from '../crypto/secret-cipher';
import { DuplicateKeyError } from '../store/types';
import type { MongoDocumentStore } from '../store/mongo/mongo-store';
import type { DocumentStore } from '../store/types';
import { insertLegacyWebhook } from '../testing/legacy-webhook';
import { storeTargets } from '../testing/stores';
import { ORG_A, ORG_B, present, useRepository } from '../testing/jest-helpers';
import { WEBHOOKS, WebhookEntity } from './webhook.entity';
import { WebhookRepository } from './webhook.repository';
import { openWebhookUrl, sealWebhookUrl, webhookUrlHashes } from './webhook-url';
import { resealWebhookUrls } from './webhook-url-migration';

const key1 = randomBytes(32);
const key2 = randomBytes(32);
const cipher = new SecretCipher({ current: { version: 1, key: key1 } });
const TOKEN = 'tok-7hQ2xLm9Zr4K';
const URL_A = `https://hooks.example.com/in?token=${TOKEN}`;

const hook = (c: SecretCipher, orgId: string, url: string) => ({ ...sealWebhookUrl(c, orgId, url), events: ['budget.exceeded'], secret: c.encrypt(orgId, 'whsec_1') });

/** A document as written before URLs were sealed: `url` in clear, no `url_hash`. */
const insertLegacy = (store: DocumentStore, orgId: string, id: string, url: string): Promise<WebhookEntity> =>
  insertLegacyWebhook(store, cipher, { _id: id, org_id: orgId, url, description: 'legacy', consecutive_failures: 2, created_at: new Date('2026-01-01T00:00:00Z') });

describe.each(storeTargets(process.env.MONGODB_URI))('Webhook URLs at rest ($name)', (target) => {
  const t = useRepository(target, (store) => new WebhookRepository(store));
  const raw = (id: string) => t.ctx.store.collection(WEBHOOKS).findOne({ _id: id });

  it('stores the URL sealed with the organization as associated data, and a keyed hash: never the URL in clear', async () => {
    const created = await t.repo.create(ORG_A, hook(cipher, ORG_A, URL_A));
    const stored = present(await raw(created._id));
    expect(JSON.stringify(stored)).not.toContain(TOKEN);
    expect(JSON.stringify(stored)).not.toContain('hooks.example.com');
    expect(stored.url_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(openWebhookUrl(cipher, ORG_A, stored)).toBe(URL_A);
    expect(() => openWebhookUrl(cipher, ORG_B, stored)).toThrow();
    // The same URL in another organization has another hash (the org id is part of the input).
    expect(sealWebhookUrl(cipher, ORG_B, URL_A).url_hash).not.toBe(stored.url_hash);
  });

  it('keeps one webhook per URL per organization with the unique index org_url_hash_unique', async () => {
    await t.repo.create(ORG_A, hook(cipher, ORG_A, URL_A));
    await t.repo.create(ORG_B, hook(cipher, ORG_B, URL_A));
    const error = await t.repo.create(ORG_A, hook(cipher, ORG_A, URL_A)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DuplicateKeyError);
    expect(error).toMatchObject({ index: 'org_url_hash_unique' });
  });

  it('reads both shapes: a document stored in clear is listed, found by URL, updated and deleted', async () => {
    const legacy = await insertLegacy(t.ctx.store, ORG_A, 'whk_legacy1', URL_A);
    const other = await insertLegacy(t.ctx.store, ORG_A, 'whk_legacy2', 'https://hooks.example.com/other');
    const sealed = await t.repo.create(ORG_A, hook(cipher, ORG_A, 'https://hooks.example.com/sealed'));
    // Documents stored in clear have no url_hash: the partial unique index leaves them out, so several coexist.
    expect((await t.repo.list(ORG_A)).items.map((w) => [w._id, openWebhookUrl(cipher, ORG_A, w)])).toEqual(
      expect.arrayContaining([
        [legacy._id, URL_A],
        [other._id, 'https://hooks.example.com/other'],
        [sealed._id, 'https://hooks.example.com/sealed'],
      ]),
    );
    expect((await t.repo.findByUrl(ORG_A, URL_A, webhookUrlHashes(cipher, ORG_A, URL_A)))?._id).toBe(legacy._id);
    const sealedUrl = 'https://hooks.example.com/sealed';
    expect((await t.repo.findByUrl(ORG_A, sealedUrl, webhookUrlHashes(cipher, ORG_A, sealedUrl)))?._id).toBe(sealed._id);
    expect(await t.repo.findByUrl(ORG_A, URL_A, webhookUrlHashes(cipher, ORG_A, URL_A), legacy._id)).toBeNull();
    expect(await t.repo.findByUrl(ORG_B, URL_A, webhookUrlHashes(cipher, ORG_B, URL_A))).toBeNull();
    expect(await t.repo.updateById(ORG_A, legacy._id, { events: ['budget.warning'] })).toMatchObject({ url: URL_A, events: ['budget.warning'] });
    expect(await t.repo.deleteById(ORG_A, other._id)).toBe(true);
    expect(await t.repo.count(ORG_A)).toBe(2);
  });

  it('the start-up pass seals every document stored in clear, keeps every other field, and is safe to run twice and at once', async () => {
    const legacyA = await insertLegacy(t.ctx.store, ORG_A, 'whk_legacy1', URL_A);
    const legacyB = await insertLegacy(t.ctx.store, ORG_B, 'whk_legacy2', URL_A);
    const sealed = await t.repo.create(ORG_A, hook(cipher, ORG_A, 'https://hooks.example.com/sealed'));
    const runs = await Promise.all([resealWebhookUrls(t.repo, cipher), resealWebhookUrls(t.repo, cipher)]);
    expect(runs[0].sealed + runs[1].sealed).toBe(2);
    expect(await resealWebhookUrls(t.repo, cipher)).toEqual({ sealed: 0, rehashed: 0, skipped: 0 });
    for (const [orgId, before] of [[ORG_A, legacyA], [ORG_B, legacyB]] as const) {
      const after = present(await raw(before._id));
      expect(JSON.stringify(after)).not.toContain(TOKEN);
      expect(openWebhookUrl(cipher, orgId, after)).toBe(URL_A);
      expect({ ...after, url: null, url_hash: null }).toEqual({ ...before, url: null, url_hash: null });
      // Now the unique index holds it too.
      await expect(t.repo.create(orgId, hook(cipher, orgId, URL_A))).rejects.toBeInstanceOf(DuplicateKeyError);
    }
    expect(await raw(sealed._id)).toEqual(sealed);
  });

  it('the pass leaves a document stored in clear as it is when a sealed webhook of the org has its URL', async () => {
    const legacy = await insertLegacy(t.ctx.store, ORG_A, 'whk_legacy1', URL_A);
    await t.repo.create(ORG_A, hook(cipher, ORG_A, URL_A));
    expect(await resealWebhookUrls(t.repo, cipher)).toEqual({ sealed: 0, rehashed: 0, skipped: 1 });
    expect(await raw(legacy._id)).toEqual(legacy);
  });

  it('after a master-key rotation the URL is still found by its hash under the previous key, and the pass re-hashes it under the new one', async () => {
    const before = await t.repo.create(ORG_A, hook(cipher, ORG_A, URL_A));
    const rotated = new SecretCipher({ current: { version: 2, key: key2 }, previous: [{ version: 1, key: key1 }] });
    expect((await t.repo.findByUrl(ORG_A, URL_A, webhookUrlHashes(rotated, ORG_A, URL_A)))?._id).toBe(before._id);
    expect(await resealWebhookUrls(t.repo, rotated)).toEqual({ sealed: 0, rehashed: 1, skipped: 0 });
    const after = present(await raw(before._id));
    expect(after.url).toMatchObject({ key_version: 2 });
    expect(after.url_hash).toBe(sealWebhookUrl(rotated, ORG_A, URL_A).url_hash);
    // The previous key can go: the URL opens and is found with the new key alone.
    const newOnly = new SecretCipher({ current: { version: 2, key: key2 } });
    expect(openWebhookUrl(newOnly, ORG_A, after)).toBe(URL_A);
    expect((await t.repo.findByUrl(ORG_A, URL_A, webhookUrlHashes(newOnly, ORG_A, URL_A)))?._id).toBe(before._id);
    await expect(t.repo.create(ORG_A, hook(newOnly, ORG_A, URL_A))).rejects.toBeInstanceOf(DuplicateKeyError);
  });

  it('replaces the index org_url_unique of a store written before: documents stored in clear survive a reopen and the new index applies', async () => {
    if (t.ctx.store.kind === 'mongodb') {
      // The index as the previous version declared it (the embedded store keeps indexes in memory only).
      await (t.ctx.store as MongoDocumentStore).connection
        .collection('webhooks')
        .createIndex({ org_id: 1, url: 1 }, { unique: true, name: 'org_url_unique' });
    }
    const legacy = await insertLegacy(t.ctx.store, ORG_A, 'whk_legacy1', URL_A);
    const store = await t.ctx.reopen();
    const repo = new WebhookRepository(store);
    await store.ready();
    if (store.kind === 'mongodb') {
      const indexes = await (store as MongoDocumentStore).connection.collection('webhooks').indexes();
      expect(indexes.map((index) => index.name)).toEqual(expect.arrayContaining(['org_url_hash_unique']));
      expect(indexes.map((index) => index.name)).not.toContain('org_url_unique');
    }
    expect(await repo.findById(ORG_A, legacy._id)).toEqual(legacy);
    const second = await repo.create(ORG_A, hook(cipher, ORG_A, 'https://hooks.example.com/second'));
    await expect(repo.create(ORG_A, hook(cipher, ORG_A, 'https://hooks.example.com/second'))).rejects.toMatchObject({ index: 'org_url_hash_unique' });
    expect(await repo.count(ORG_A)).toBe(2);
    expect(second.url_hash).toBeDefined();
  });
});
