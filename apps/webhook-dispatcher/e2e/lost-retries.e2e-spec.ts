import { asOrgId, WebhookDeliveryEntity } from '@svc/domain';
import { GatewayEvent, webhookDeliveryJobId } from '@svc/events';
import { createRedis, Redis, waitForRedis } from '@svc/platform';
import { RedisProcess, startRedisProcess, TestService } from '@svc/testing';
import { bootDispatcher, newOrg, Receiver, sampleEvent, seedWebhook, sleep, waitUntil } from './dispatcher.helpers';

const SECRET = 'whsec_TG9zdFJldHJpZXNBZnRlckZsdXNoQWxsU2VjcmV0';
const RETRY_BASE_MS = 300;
const SWEEP_INTERVAL_MS = 500;

/**
 * docs/webhooks-delivery.md "At least once" and docs/deploy-operating.md "When Redis loses its data": a delivery waiting
 * for its next attempt is a delayed BullMQ job, and a Redis that loses its data (FLUSHALL here, on a
 * private redis-server) loses it. The dispatcher's retry sweep puts it back, and the delivery goes on
 * where its schedule was: delivered once the receiver is healthy, or a dead letter after six attempts.
 */
describe('webhook dispatcher: retries lost with Redis data are put back', () => {
  let server: RedisProcess;
  let admin: Redis;
  let service: TestService;
  let receiver: Receiver;

  beforeAll(async () => {
    server = await startRedisProcess();
    admin = createRedis(server.url, 'queue', 'lost-retries-e2e');
    await waitForRedis(admin);
    receiver = await Receiver.start();
    service = await bootDispatcher({
      REDIS_URL: server.url,
      WEBHOOK_RETRY_BASE_MS: String(RETRY_BASE_MS),
      WEBHOOK_SWEEP_INTERVAL_MS: String(SWEEP_INTERVAL_MS),
      WEBHOOK_TIMEOUT_MS: '1000',
    });
  });
  afterAll(async () => {
    await service?.stop();
    await receiver?.close();
    admin?.disconnect();
    await server?.stop();
  });

  const recordOf = (orgId: string, webhookId: string, event: GatewayEvent) =>
    service.runtime.repositories.webhookDeliveries.findByEvent(asOrgId(orgId), webhookId, event.id);
  const untilRecord = async (orgId: string, webhookId: string, event: GatewayEvent, check: (d: WebhookDeliveryEntity) => boolean, timeoutMs = 15_000) => {
    let found: WebhookDeliveryEntity | null = null;
    await waitUntil(async () => {
      found = await recordOf(orgId, webhookId, event);
      return !!found && check(found);
    }, timeoutMs, `delivery record of ${event.id}`);
    return found as unknown as WebhookDeliveryEntity;
  };

  /** Publishes an event, lets two attempts fail, and flushes Redis while the third waits as a delayed job. */
  const failTwiceThenFlush = async (path: string) => {
    const orgId = await newOrg(service);
    const webhook = await seedWebhook(service, orgId, receiver.url(path), ['budget.exceeded'], SECRET);
    const event = sampleEvent('budget.exceeded', orgId);
    await service.runtime.events.publisher.publish(event);
    await untilRecord(orgId, webhook._id, event, (d) => d.status === 'failed' && d.retry_count === 1);
    const jobId = webhookDeliveryJobId(event.id, webhook._id);
    await waitUntil(async () => (await admin.zscore('svc:webhook-delivery:delayed', jobId)) !== null, 2_000, 'the third attempt waiting as a delayed job');
    expect(await admin.flushall()).toBe('OK');
    expect(await admin.exists(`svc:webhook-delivery:${jobId}`)).toBe(0);
    return { orgId, webhook, event };
  };

  it('FLUSHALL while a delivery waits for its retry: put back, and delivered once the receiver is healthy', async () => {
    let healthy = false;
    receiver.behave('/recovers', () => (healthy ? { status: 200 } : { status: 503, body: 'down' }));
    const { orgId, webhook, event } = await failTwiceThenFlush('/recovers');
    healthy = true;

    const record = await untilRecord(orgId, webhook._id, event, (d) => d.status === 'succeeded');
    expect(record).toMatchObject({ status: 'succeeded', status_code: 200, retry_count: 2, dead_letter: false, next_attempt_at: null, error: null });
    const requests = receiver.on('/recovers');
    expect(requests).toHaveLength(3);
    expect(new Set(requests.map((r) => r.headers['webhook-id']))).toEqual(new Set([event.id]));
    expect(new Set(requests.map((r) => r.body))).toEqual(new Set([JSON.stringify(event)]));
    // Nothing more once it is delivered: the sweep leaves a succeeded delivery alone.
    await sleep(SWEEP_INTERVAL_MS * 3);
    expect(receiver.on('/recovers')).toHaveLength(3);
  }, 30_000);

  it('FLUSHALL while a delivery waits for its retry, receiver still failing: the schedule goes on to a dead letter after six attempts', async () => {
    receiver.behave('/down', () => ({ status: 500, body: 'still down' }));
    const { orgId, webhook, event } = await failTwiceThenFlush('/down');

    const record = await untilRecord(orgId, webhook._id, event, (d) => d.status === 'dead_letter', 25_000);
    expect(record).toMatchObject({ status: 'dead_letter', dead_letter: true, status_code: 500, retry_count: 5, error: 'HTTP 500: still down', next_attempt_at: null });
    expect((await service.runtime.repositories.webhooks.findById(asOrgId(orgId), webhook._id))?.consecutive_failures).toBe(1);
    const at = receiver.on('/down').map((r) => r.at);
    expect(at).toHaveLength(6);
    // Attempts 4, 5 and 6 came after the waits the schedule had left (4, 8, 16 x the base), not a new schedule's.
    expect(at[4] - at[3]).toBeGreaterThanOrEqual(RETRY_BASE_MS * 8 * 0.9);
    expect(at[5] - at[4]).toBeGreaterThanOrEqual(RETRY_BASE_MS * 16 * 0.9);
    await sleep(SWEEP_INTERVAL_MS * 3);
    expect(receiver.on('/down')).toHaveLength(6);
  }, 40_000);
});
