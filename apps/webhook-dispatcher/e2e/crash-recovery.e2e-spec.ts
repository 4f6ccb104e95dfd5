import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { asOrgId, createRepositories, EmbeddedDocumentStore, sealWebhookUrl, SecretCipher, WebhookEntity } from '@svc/domain';
import { createEventBus, EventBus } from '@svc/events';
import { spawnNode, SpawnedProcess, TestService } from '@svc/testing';
import { bootDispatcher, cleanRedis, Receiver, redisUrl, sampleEvent, sleep, verifyDelivery, waitUntil } from './dispatcher.helpers';

const REDIS_URL = redisUrl(12);
const SECRET = 'whsec_Q3Jhc2hSZWNvdmVyeVNlY3JldEtleUZvclRlc3Qh';
const silent = pino({ level: 'silent' });

/**
 * At least once across a crash: the dispatcher runs as a real process, is killed with SIGKILL
 * while a receiver holds its delivery open, and a new dispatcher on the same Redis and data takes
 * the job over once its lock expires. Shared secrets, so the restarted one decrypts the webhook's.
 */
describe('webhook dispatcher: no event lost when a dispatcher dies or stops mid-delivery', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-dispatcher-crash-'));
  const secrets = { MASTER_ENCRYPTION_KEY: randomBytes(32).toString('base64'), JWT_SECRET: randomBytes(32).toString('hex') };
  const env = { REDIS_URL, DATA_DIR: dataDir, WEBHOOK_WORKER_LOCK_MS: '1000', ...secrets };
  let receiver: Receiver;
  let bus: EventBus;
  let orgId: string;
  let webhook: WebhookEntity;
  let child: SpawnedProcess | null = null;
  const services: TestService[] = [];

  beforeAll(async () => {
    receiver = await Receiver.start();
    bus = createEventBus({ REDIS_URL }, silent, { name: 'crash-e2e-publisher' });
    // Seed the data directory before any dispatcher opens it (one process owns an embedded store).
    const store = await EmbeddedDocumentStore.open(dataDir, silent);
    await store.ready();
    const repos = createRepositories(store);
    orgId = (await repos.organizations.create({ name: 'crash-test', plan: 'growth' }))._id;
    const cipher = new SecretCipher({ current: { version: 1, key: Buffer.from(secrets.MASTER_ENCRYPTION_KEY, 'base64') } });
    webhook = await repos.webhooks.create(asOrgId(orgId), {
      ...sealWebhookUrl(cipher, orgId, receiver.url('/crash')),
      events: ['budget.exceeded', 'budget.warning'],
      secret: cipher.encrypt(orgId, SECRET),
    });
    await store.close();
  });
  afterAll(async () => {
    child?.child.kill('SIGKILL');
    for (const service of services) await service.stop();
    await bus.close();
    await receiver.close();
    await cleanRedis(REDIS_URL);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('killed with SIGKILL mid-delivery: the restarted dispatcher delivers the same event, same id', async () => {
    receiver.behave('/crash', (_request, nth) => (nth === 1 ? { status: 200, hang: true } : { status: 200 }));
    child = spawnNode(['-r', '@swc-node/register', 'apps/webhook-dispatcher/src/main.ts'], {
      SWC_NODE_PROJECT: 'tsconfig.base.json',
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      WEBHOOK_DISPATCHER_PORT: '0',
      WEBHOOK_RETRY_BASE_MS: '20',
      OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
      ANOMALY_CHECK_INTERVAL_MS: '0',
      ...env,
    });
    await child.waitFor('is running', 60_000);

    const event = sampleEvent('budget.exceeded', orgId);
    await bus.publisher.publish(event);
    const [first] = await receiver.waitFor('/crash', 1, 15_000);
    child.child.kill('SIGKILL');
    expect(await child.exited).toBe('SIGKILL');
    child = null;

    const restarted = await bootDispatcher({ ...env });
    services.push(restarted);
    const [, second] = await receiver.waitFor('/crash', 2, 15_000);
    expect(second.headers['webhook-id']).toBe(event.id);
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(second.body).toBe(first.body);
    expect(JSON.parse(second.body)).toEqual(event);
    for (const request of [first, second]) expect(await verifyDelivery(request, SECRET)).toEqual({ hmac: true, standard: true });

    const deliveries = restarted.runtime.repositories.webhookDeliveries;
    await waitUntil(async () => (await deliveries.findByEvent(asOrgId(orgId), webhook._id, event.id))?.status === 'succeeded', 5_000, 'the delivery record');
    const records = await deliveries.listByWebhook(asOrgId(orgId), webhook._id);
    expect(records.items.filter((d) => d.event_id === event.id)).toHaveLength(1);
    await sleep(300);
    expect(receiver.on('/crash')).toHaveLength(2);
  }, 90_000);

  it('stopped gracefully mid-delivery: the delivery finishes first and is not sent again after a restart', async () => {
    const running = services.pop() as TestService;
    receiver.behave('/crash', () => ({ status: 202, delayMs: 400 }));
    const before = receiver.on('/crash').length;
    const event = sampleEvent('budget.warning', orgId);
    await bus.publisher.publish(event);
    await receiver.waitFor('/crash', before + 1);
    await running.stop(); // waits for the in-flight delivery (the data directory is ours, not removed)
    const again = await bootDispatcher({ ...env });
    services.push(again);
    const record = await again.runtime.repositories.webhookDeliveries.findByEvent(asOrgId(orgId), webhook._id, event.id);
    expect(record).toMatchObject({ status: 'succeeded', status_code: 202, retry_count: 0 });
    await sleep(1_500);
    expect(receiver.on('/crash')).toHaveLength(before + 1);
  });
});
