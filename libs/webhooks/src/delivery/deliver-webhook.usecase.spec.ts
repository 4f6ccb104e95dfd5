import { randomBytes } from 'node:crypto';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { asOrgId, createRepositories, OrgId, Repositories, SecretCipher, storeTargets, sealWebhookUrl, StoreUnderTest, WEBHOOK_DELIVERIES, WebhookEntity } from '@svc/domain';
import { createEvent, EVENT_SOURCES, GatewayEvent, QueueJob, WEBHOOK_MAX_ATTEMPTS, WebhookDeliveryJob } from '@svc/events';
import type { DispatcherSettings } from '../dispatcher-settings';
import { OutboundPoster } from '../infra/outbound-poster';
import { DeliverWebhookUseCase } from './deliver-webhook.usecase';
import { RecordDeadLetterUseCase } from './record-dead-letter.usecase';

const [embedded] = storeTargets(undefined);
const SECRET = 'whsec_RGVsaXZlcldlYmhvb2tVc2VDYXNlU3BlY1NlY3JldA==';
const silent = pino({ level: 'silent' });

/**
 * One attempt at a time, called the way the queue calls it, with no queue around it: what the use
 * case leaves in the store is all there is when a dispatcher dies right after the job failed.
 */
describe('DeliverWebhookUseCase', () => {
  let ctx: StoreUnderTest;
  let repos: Repositories;
  let poster: OutboundPoster;
  let deliver: DeliverWebhookUseCase;
  let server: Server;
  let url: string;
  let status = 500;
  const received: string[] = [];
  const paths: string[] = [];
  const cipher = new SecretCipher({ current: { version: 1, key: randomBytes(32) } });
  let orgId: OrgId;
  let webhook: WebhookEntity;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push(Buffer.concat(chunks).toString('utf8'));
        paths.push(req.url ?? '');
        res.writeHead(status).end('unavailable');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  beforeEach(async () => {
    ctx = await embedded.open();
    await ctx.store.ready();
    repos = createRepositories(ctx.store);
    poster = new OutboundPoster({ allowPrivate: true, allowHttp: true, timeoutMs: 2_000 });
    const settings: DispatcherSettings = {
      retryBaseMs: 20,
      timeoutMs: 2_000,
      lockDurationMs: 30_000,
      allowPrivate: true,
      allowHttp: true,
      dedupWindowMs: 60_000,
      anomalyIntervalMs: 0,
      sweepIntervalMs: 0,
    };
    deliver = new DeliverWebhookUseCase(repos, cipher, poster, settings, new RecordDeadLetterUseCase(repos, silent), silent);
    orgId = asOrgId((await repos.organizations.create({ name: 'deliver-spec', plan: 'growth' }))._id);
    webhook = await repos.webhooks.create(orgId, { ...sealWebhookUrl(cipher, orgId, url), events: ['budget.exceeded'], secret: cipher.encrypt(orgId, SECRET) });
    status = 500;
    received.length = 0;
    paths.length = 0;
  });
  afterEach(async () => {
    await poster.close();
    await ctx.cleanup();
  });

  const event = (): GatewayEvent =>
    createEvent(
      'budget.exceeded',
      orgId,
      { blocked_by: 'daily_budget', daily_spent: 10.2, daily_budget: 10, model: 'gpt-4o', estimated_cost: 0.12, timestamp: new Date().toISOString() },
      EVENT_SOURCES.gateway,
    ) as GatewayEvent;
  const job = (e: GatewayEvent, attempt: number): QueueJob<WebhookDeliveryJob> => ({
    id: `${e.id}.${webhook._id}`,
    name: e.type,
    data: { event: e, webhookId: webhook._id, attempt: 1 },
    attempt,
    maxAttempts: WEBHOOK_MAX_ATTEMPTS,
    timestamp: Date.now(),
  });
  const recordOf = (e: GatewayEvent) => repos.webhookDeliveries.findByEvent(orgId, webhook._id, e.id);
  const failures = async () => (await repos.webhooks.findById(orgId, webhook._id))?.consecutive_failures;

  it('makes the record a dead letter and counts the failure on the last attempt itself, before the job fails', async () => {
    const e = event();
    for (let attempt = 1; attempt < WEBHOOK_MAX_ATTEMPTS; attempt += 1) {
      await expect(deliver.execute(job(e, attempt))).rejects.toThrow('HTTP 500: unavailable');
    }
    expect(await recordOf(e)).toMatchObject({ status: 'failed', dead_letter: false, retry_count: 4, next_attempt_at: expect.any(Date) });
    expect(await failures()).toBe(0);

    // No queue hook runs here: the record is complete once the last attempt's promise settles.
    await expect(deliver.execute(job(e, WEBHOOK_MAX_ATTEMPTS))).rejects.toThrow('HTTP 500: unavailable');
    expect(await recordOf(e)).toMatchObject({
      status: 'dead_letter',
      dead_letter: true,
      status_code: 500,
      retry_count: 5,
      error: 'HTTP 500: unavailable',
      next_attempt_at: null,
    });
    expect(await failures()).toBe(1);
    expect(received).toHaveLength(6);
  });

  it('does not send or count again when the last attempt runs a second time (crash after it ended)', async () => {
    const e = event();
    await expect(deliver.execute(job(e, WEBHOOK_MAX_ATTEMPTS))).rejects.toThrow('HTTP 500');
    const dead = await recordOf(e);
    status = 200;
    await expect(deliver.execute(job(e, WEBHOOK_MAX_ATTEMPTS))).rejects.toMatchObject({ name: 'PermanentJobError' });
    expect(received).toHaveLength(1);
    expect(await recordOf(e)).toEqual(dead);
    expect(await failures()).toBe(1);
  });

  it('goes on with a schedule put back by the retry sweep: attempts counted from the job, the sixth makes the dead letter', async () => {
    const e = event();
    for (let attempt = 1; attempt <= 2; attempt += 1) await expect(deliver.execute(job(e, attempt))).rejects.toThrow('HTTP 500');
    const waiting = await recordOf(e);
    expect(waiting).toMatchObject({ status: 'failed', retry_count: 1, attempt: 2, job_id: `${e.id}.${webhook._id}` });
    // The queue lost the job; the sweep adds it again starting at attempt 3, with the four attempts left.
    const resumed = (attempt: number): QueueJob<WebhookDeliveryJob> => ({
      ...job(e, attempt),
      data: { event: e, webhookId: webhook._id, attempt: 3, retryOfDeliveryId: waiting?._id },
      maxAttempts: WEBHOOK_MAX_ATTEMPTS - 2,
    });
    for (let attempt = 1; attempt <= 3; attempt += 1) await expect(deliver.execute(resumed(attempt))).rejects.toThrow('HTTP 500');
    expect(await recordOf(e)).toMatchObject({ status: 'failed', dead_letter: false, retry_count: 4, attempt: 5, next_attempt_at: expect.any(Date) });
    await expect(deliver.execute(resumed(4))).rejects.toThrow('HTTP 500');
    expect(await recordOf(e)).toMatchObject({ status: 'dead_letter', dead_letter: true, retry_count: 5, next_attempt_at: null });
    expect(received).toHaveLength(6);
    expect(await failures()).toBe(1);
  });

  it('does not send again a delivery put back by the sweep whose record says it succeeded (the queue had dropped the finished job)', async () => {
    status = 200;
    const e = event();
    await deliver.execute(job(e, 1));
    const delivered = await recordOf(e);
    await deliver.execute({ ...job(e, 1), data: { event: e, webhookId: webhook._id, attempt: 2, retryOfDeliveryId: delivered?._id } });
    expect(received).toHaveLength(1);
    expect(await recordOf(e)).toEqual(delivered);
  });

  it('ends the delivery at once on a 410: dead letter, webhook disabled, no failure counted', async () => {
    status = 410;
    const e = event();
    await expect(deliver.execute(job(e, 1))).rejects.toMatchObject({ name: 'PermanentJobError' });
    expect(await recordOf(e)).toMatchObject({ status: 'dead_letter', dead_letter: true, status_code: 410, retry_count: 0 });
    expect(await repos.webhooks.findById(orgId, webhook._id)).toMatchObject({ status: 'disabled', consecutive_failures: 0 });
  });

  it('ends the delivery at once, sending nothing, when the URL was sealed under a key that is not configured', async () => {
    status = 200;
    const retired = new SecretCipher({ current: { version: 7, key: randomBytes(32) } });
    await repos.webhooks.updateById(orgId, webhook._id, sealWebhookUrl(retired, orgId, url));
    const e = event();
    await expect(deliver.execute(job(e, 1))).rejects.toMatchObject({ name: 'PermanentJobError', message: 'the webhook URL cannot be decrypted' });
    expect(received).toHaveLength(0);
    expect(await recordOf(e)).toMatchObject({ status: 'dead_letter', dead_letter: true, status_code: null, error: 'the webhook URL cannot be decrypted', url: '' });
    expect(await failures()).toBe(1);
  });

  it('keeps one record when two runs of the first attempt overlap', async () => {
    status = 200;
    const e = event();
    await Promise.all([deliver.execute(job(e, 1)), deliver.execute(job(e, 1))]);
    expect(received).toHaveLength(2);
    expect(received[1]).toBe(received[0]);
    const page = await repos.webhookDeliveries.listByWebhook(orgId, webhook._id);
    expect(page.items.map((d) => [d.event_id, d.status])).toEqual([[e.id, 'succeeded']]);
  });

  it('stores the delivery record without the credential parts of the webhook URL, and still delivers to the whole URL', async () => {
    status = 503;
    const token = 'tok-Q9xYh2LmN4pR7sT1';
    const secretUrl = `${url}?token=${token}&team=ops`;
    const secretHook = await repos.webhooks.create(orgId, { ...sealWebhookUrl(cipher, orgId, secretUrl), events: ['budget.exceeded'], secret: cipher.encrypt(orgId, SECRET) });
    const e = event();
    const run = { ...job(e, 1), data: { event: e, webhookId: secretHook._id, attempt: 1 } };
    await expect(deliver.execute(run)).rejects.toThrow('HTTP 503');
    expect(paths).toEqual([`/hook?token=${token}&team=ops`]);
    const stored = await ctx.store.collection(WEBHOOK_DELIVERIES).findOne({ org_id: orgId, webhook_id: secretHook._id });
    expect(stored).toMatchObject({ url: `${url}?token=[REDACTED]&team=ops`, status: 'failed' });
    expect(JSON.stringify(stored)).not.toContain(token);
  });
});
