import { SERVICE_VERSION } from '@svc/platform';
import type { ServiceDefinition } from '@svc/runtime';
import { bootService, TestService } from '@svc/testing';
import { AppModule as DispatcherModule } from '../src/app.module';
import { cleanRedis, loginOwner, OrgApiSurface, OWNER, Receiver, redisUrl, sampleEvent, sleep, verifyDelivery, waitUntil } from './dispatcher.helpers';

const REDIS_URL = redisUrl(14);

/** The organization API and the dispatcher on one runtime: one store, one Redis, as deployed side by side. */
const ORG_API_AND_DISPATCHER: ServiceDefinition = {
  name: 'org-api+webhook-dispatcher',
  bootstrap: true,
  version: SERVICE_VERSION,
  surfaces: [
    { label: 'org-api', module: OrgApiSurface, port: 'ORG_API_PORT', surface: 'org' },
    { label: 'webhook-dispatcher', module: DispatcherModule, port: 'WEBHOOK_DISPATCHER_PORT', surface: 'gateway' },
  ],
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are asserted field by field
type Json = Record<string, any>;

/**
 * "Dead letter, then manual retry succeeds" through the real route: a receiver that keeps failing
 * drives a delivery to the dead-letter queue, `POST /api/v1/admin/webhooks/{id}/deliveries/
 * {delivery_id}/retry` puts it back over HTTP, and the dispatcher delivers the same event again.
 */
describe('dead letter, then manual retry through the organization API', () => {
  let service: TestService;
  let receiver: Receiver;
  let token: string;
  let orgId: string;

  const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${service.urls['org-api']}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
  };

  beforeAll(async () => {
    await cleanRedis(REDIS_URL);
    receiver = await Receiver.start();
    service = await bootService(ORG_API_AND_DISPATCHER, {
      REDIS_URL,
      WEBHOOK_RETRY_BASE_MS: '20',
      OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
      ANOMALY_CHECK_INTERVAL_MS: '0',
      BOOTSTRAP_ADMIN_EMAIL: OWNER.email,
      BOOTSTRAP_ADMIN_PASSWORD: OWNER.password,
      BOOTSTRAP_ORG_PLAN: 'growth',
    });
    ({ token, orgId } = await loginOwner(service.urls['org-api'], OWNER));
  });
  afterAll(async () => {
    await service?.stop();
    await receiver?.close();
    await cleanRedis(REDIS_URL);
  });

  it('delivers the dead letter again with the same webhook-id, a valid signature, on the same record', async () => {
    let healthy = false;
    receiver.behave('/dead', () => (healthy ? { status: 204 } : { status: 503, body: 'maintenance' }));
    const registered = await call('POST', '/api/v1/admin/webhooks', { url: receiver.url('/dead'), events: ['budget.exceeded'] });
    expect(registered.status).toBe(201);
    const { id: webhookId, secret } = registered.body as { id: string; secret: string };

    // What the gateway publishes when a request is refused for the daily budget.
    const event = sampleEvent('budget.exceeded', orgId);
    await service.runtime.events.publisher.publish(event);
    const attempts = await receiver.waitFor('/dead', 6);
    let dead: Json | undefined;
    await waitUntil(
      async () => {
        const page = await call('GET', `/api/v1/admin/webhooks/${webhookId}/deliveries`);
        dead = page.body.items?.find((item: Json) => item.event_id === event.id && item.dead_letter);
        return !!dead;
      },
      8_000,
      'the dead letter to be listed',
    );
    expect(dead).toMatchObject({ status: 'dead_letter', status_code: 503, retry_count: 5, error: 'HTTP 503: maintenance', next_attempt_at: null });
    expect((await call('GET', `/api/v1/admin/webhooks/${webhookId}`)).body).toMatchObject({ status: 'active', consecutive_failures: 1 });
    await sleep(100);
    expect(receiver.on('/dead')).toHaveLength(6);

    healthy = true;
    const retry = await call('POST', `/api/v1/admin/webhooks/${webhookId}/deliveries/${dead?.id}/retry`);
    expect(retry.status).toBe(202);
    expect(retry.body).toMatchObject({ status: 'queued', webhook_id: webhookId, event_id: event.id, delivery_id: dead?.id });

    const [retried] = (await receiver.waitFor('/dead', 7)).slice(6);
    expect(retried.headers['webhook-id']).toBe(event.id);
    expect(retried.body).toBe(attempts[0].body);
    expect(JSON.parse(retried.body)).toEqual(event);
    expect(await verifyDelivery(retried, secret)).toEqual({ hmac: true, standard: true });

    let record: Json | undefined;
    await waitUntil(
      async () => {
        const page = await call('GET', `/api/v1/admin/webhooks/${webhookId}/deliveries`);
        record = page.body.items?.find((item: Json) => item.event_id === event.id);
        return record?.status === 'succeeded';
      },
      5_000,
      'the retried delivery to be recorded',
    );
    const page = await call('GET', `/api/v1/admin/webhooks/${webhookId}/deliveries`);
    expect(page.body.total).toBe(1);
    expect(record).toMatchObject({
      id: dead?.id,
      status: 'succeeded',
      dead_letter: false,
      status_code: 204,
      retry_count: 6,
      error: null,
      next_attempt_at: null,
      delivered_at: expect.any(String),
    });
    expect(Date.parse(record?.last_attempt_at)).toBeGreaterThan(Date.parse(dead?.last_attempt_at));
    expect((await call('GET', `/api/v1/admin/webhooks/${webhookId}`)).body).toMatchObject({ status: 'active', consecutive_failures: 0 });
    // Retrying it again is refused: it is no longer a dead letter.
    expect((await call('POST', `/api/v1/admin/webhooks/${webhookId}/deliveries/${dead?.id}/retry`)).status).toBe(409);
  });
});
