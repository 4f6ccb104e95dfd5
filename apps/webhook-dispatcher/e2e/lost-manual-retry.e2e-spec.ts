import { randomBytes } from 'node:crypto';
import { asOrgId } from '@svc/domain';
import { createRedis, Redis, SERVICE_VERSION, waitForRedis } from '@svc/platform';
import type { ServiceDefinition } from '@svc/runtime';
import { bootService, RedisProcess, startRedisProcess, TestService } from '@svc/testing';
import { SERVICE as DISPATCHER } from '../src/app.module';
import { loginOwner, OrgApiSurface, OWNER, Receiver, sampleEvent, sleep, waitUntil } from './dispatcher.helpers';

const SWEEP_INTERVAL_MS = 500;

const ORG_API: ServiceDefinition = {
  name: 'org-api',
  bootstrap: true,
  version: SERVICE_VERSION,
  surfaces: [{ label: 'org-api', module: OrgApiSurface, port: 'ORG_API_PORT', surface: 'org' }],
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are asserted field by field
type Json = Record<string, any>;

/**
 * docs/webhooks-delivery.md "At least once" and docs/deploy-operating.md "When Redis loses its data": a manual retry
 * of a dead letter is a `webhook-delivery` job; when Redis loses it before it runs (FLUSHALL here,
 * on a private redis-server, while the dispatcher is down), the record, `pending` and no longer a
 * dead letter, stayed so for ever: neither sent nor retryable by hand. The retry records its job,
 * and the dispatcher's retry sweep puts it back.
 */
describe('a manual retry lost with Redis data is put back by the retry sweep', () => {
  let server: RedisProcess;
  let admin: Redis;
  let orgApi: TestService;
  let dispatcher: TestService | null = null;
  let receiver: Receiver;
  let token: string;
  let orgId: string;
  let env: Record<string, string>;

  const call = async (method: string, path: string): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${orgApi.urls['org-api']}${path}`, { method, headers: { authorization: `Bearer ${token}` } });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
  };
  const startDispatcher = async () => {
    dispatcher = await bootService(DISPATCHER, env, { documentStore: orgApi.runtime.store });
    return dispatcher;
  };

  beforeAll(async () => {
    server = await startRedisProcess();
    admin = createRedis(server.url, 'queue', 'lost-manual-retry-e2e');
    await waitForRedis(admin);
    receiver = await Receiver.start();
    env = {
      REDIS_URL: server.url,
      // The two services share their secrets (generated ones would differ per DATA_DIR).
      MASTER_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      JWT_SECRET: randomBytes(48).toString('base64url'),
      WEBHOOK_RETRY_BASE_MS: '20',
      WEBHOOK_SWEEP_INTERVAL_MS: String(SWEEP_INTERVAL_MS),
      OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
      ANOMALY_CHECK_INTERVAL_MS: '0',
      BOOTSTRAP_ADMIN_EMAIL: OWNER.email,
      BOOTSTRAP_ADMIN_PASSWORD: OWNER.password,
      BOOTSTRAP_ORG_PLAN: 'growth',
    };
    orgApi = await bootService(ORG_API, env);
    ({ token, orgId } = await loginOwner(orgApi.urls['org-api'], OWNER));
  });
  afterAll(async () => {
    await dispatcher?.stop();
    await orgApi?.stop();
    await receiver?.close();
    admin?.disconnect();
    await server?.stop();
  });

  it('FLUSHALL while the retry waits for a dispatcher: put back, delivered once, on the same record', async () => {
    let healthy = false;
    receiver.behave('/hook', () => (healthy ? { status: 204 } : { status: 503, body: 'maintenance' }));
    const registered = await fetch(`${orgApi.urls['org-api']}/api/v1/admin/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiver.url('/hook'), events: ['budget.exceeded'] }),
    });
    expect(registered.status).toBe(201);
    const webhookId = ((await registered.json()) as Json).id as string;

    // Six failed attempts make the delivery a dead letter.
    const first = await startDispatcher();
    const event = sampleEvent('budget.exceeded', orgId);
    await first.runtime.events.publisher.publish(event);
    await receiver.waitFor('/hook', 6);
    const deliveries = () => call('GET', `/api/v1/admin/webhooks/${webhookId}/deliveries`);
    let dead: Json | undefined;
    await waitUntil(async () => !!(dead = (await deliveries()).body.items?.find((item: Json) => item.dead_letter)), 8_000, 'the dead letter');
    await first.stop();
    dispatcher = null;

    // Retried by hand with no dispatcher running: the job waits in Redis, and Redis loses it.
    healthy = true;
    const retry = await call('POST', `/api/v1/admin/webhooks/${webhookId}/deliveries/${dead?.id}/retry`);
    expect(retry).toMatchObject({ status: 202, body: { status: 'queued', delivery_id: dead?.id, event_id: event.id } });
    // The record keeps the retry's job (not the dead letter's, which the queue may retain) and a new schedule.
    const stored = await orgApi.runtime.repositories.webhookDeliveries.findById(asOrgId(orgId), dead?.id);
    expect(stored).toMatchObject({ status: 'pending', job_id: retry.body.job_id, attempt: 0 });
    const jobKey = `svc:webhook-delivery:${retry.body.job_id}`;
    expect(await admin.exists(jobKey)).toBe(1);
    expect(await admin.flushall()).toBe('OK');
    expect(await admin.exists(jobKey)).toBe(0);
    expect((await deliveries()).body.items).toEqual([expect.objectContaining({ id: dead?.id, status: 'pending', dead_letter: false })]);

    // A dispatcher starts again: its sweep finds the overdue retry and queues it under its job id.
    await startDispatcher();
    const [retried] = (await receiver.waitFor('/hook', 7, SWEEP_INTERVAL_MS * 10)).slice(6);
    expect(retried.headers['webhook-id']).toBe(event.id);
    expect(JSON.parse(retried.body)).toEqual(event);
    let record: Json | undefined;
    await waitUntil(async () => (record = (await deliveries()).body.items?.[0])?.status === 'succeeded', 5_000, 'the retry to be recorded');
    expect(record).toMatchObject({ id: dead?.id, status: 'succeeded', dead_letter: false, status_code: 204, retry_count: 6, error: null, next_attempt_at: null });
    // Sent once: the sweep leaves a delivered retry alone.
    await sleep(SWEEP_INTERVAL_MS * 3);
    expect(receiver.on('/hook')).toHaveLength(7);
  }, 40_000);
});
