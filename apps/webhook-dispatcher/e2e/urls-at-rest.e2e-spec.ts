import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { asOrgId, createRepositories, DocumentStore, EmbeddedDocumentStore, insertLegacyWebhook, SecretCipher, WEBHOOKS, WebhookEntity } from '@svc/domain';
import type { TestService } from '@svc/testing';
import { bootDispatcher, cleanRedis, Receiver, redisUrl, sampleEvent, seedWebhook, verifyDelivery } from './dispatcher.helpers';

const REDIS_URL = redisUrl(10);
const SECRET = 'whsec_VXJsc0F0UmVzdFNlY3JldEtleUZvclRlc3Qx';
const TOKEN = 'tok-Kd8sPq3Xv7Nm2Wz';
const silent = pino({ level: 'silent' });

/** A webhook as an earlier version stored it: `url` in clear, no `url_hash`. */
const insertLegacy = (store: DocumentStore, cipher: SecretCipher, orgId: string, id: string, url: string): Promise<WebhookEntity> =>
  insertLegacyWebhook(store, cipher, { _id: id, org_id: orgId, url, secret: SECRET });

/**
 * docs/webhooks-outbound.md "Receiver URLs at rest": the dispatcher delivers to sealed URLs and to URLs an
 * earlier version stored in clear, and its start seals the latter (the start-up pass).
 */
describe('webhook dispatcher: receiver URLs sealed at rest', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-dispatcher-at-rest-'));
  const secrets = { MASTER_ENCRYPTION_KEY: randomBytes(32).toString('base64'), JWT_SECRET: randomBytes(32).toString('hex') };
  const cipher = new SecretCipher({ current: { version: 1, key: Buffer.from(secrets.MASTER_ENCRYPTION_KEY, 'base64') } });
  let receiver: Receiver;
  let service: TestService;
  let orgId: string;
  let seededBeforeStart: WebhookEntity;

  beforeAll(async () => {
    receiver = await Receiver.start();
    // Data an earlier version left: a webhook stored in clear, there before the dispatcher starts.
    const store = await EmbeddedDocumentStore.open(dataDir, silent);
    await store.ready();
    orgId = (await createRepositories(store).organizations.create({ name: 'at-rest', plan: 'growth' }))._id;
    seededBeforeStart = await insertLegacy(store, cipher, orgId, 'whk_legacy_at_start', receiver.url(`/at-start?token=${TOKEN}`));
    await store.close();
    service = await bootDispatcher({ REDIS_URL, DATA_DIR: dataDir, ...secrets });
  });
  afterAll(async () => {
    await service?.stop();
    await receiver?.close();
    await cleanRedis(REDIS_URL);
    rmSync(dataDir, { recursive: true, force: true });
  });

  const raw = (id: string) => service.runtime.store.collection(WEBHOOKS).findOne({ _id: id });

  it('seals at start a webhook stored in clear, keeping every other field', async () => {
    const stored = await raw(seededBeforeStart._id);
    expect(stored).toMatchObject({ url: { key_version: 1 }, url_hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(JSON.stringify(stored)).not.toContain(TOKEN);
    expect({ ...stored, url: null, url_hash: null }).toEqual({ ...seededBeforeStart, url: null, url_hash: null });
  });

  it('delivers over real HTTP to a sealed webhook, to one stored in clear, and to one sealed at start, with their whole URLs', async () => {
    const sealed = await seedWebhook(service, orgId, receiver.url(`/sealed?token=${TOKEN}`), ['budget.exceeded'], SECRET);
    // Written in clear after the start, as a replica of the earlier version still would.
    const legacy = await insertLegacy(service.runtime.store, cipher, orgId, 'whk_legacy_live', receiver.url(`/legacy?token=${TOKEN}`));
    expect(JSON.stringify(await raw(sealed._id))).not.toContain(TOKEN);
    expect(await raw(legacy._id)).toMatchObject({ url: receiver.url(`/legacy?token=${TOKEN}`) });

    const event = sampleEvent('budget.exceeded', orgId);
    await service.runtime.events.publisher.publish(event);
    for (const [hook, path] of [[sealed, '/sealed'], [legacy, '/legacy'], [seededBeforeStart, '/at-start']] as const) {
      const [request] = await receiver.waitFor(`${path}?token=${TOKEN}`, 1);
      expect(JSON.parse(request.body)).toEqual(event);
      expect(await verifyDelivery(request, SECRET)).toEqual({ hmac: true, standard: true });
      const record = await service.runtime.repositories.webhookDeliveries.findByEvent(asOrgId(orgId), hook._id, event.id);
      expect(record?.url).toBe(receiver.url(`${path}?token=[REDACTED]`));
    }
  });
});
