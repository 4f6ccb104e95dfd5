import { asOrgId } from '@svc/domain';
import { createEvent, EVENT_SOURCES } from '@svc/events';
import { RedisProcess, startRedisProcess } from '@svc/testing';
import { Json, OrgApi, Session } from './org-api.helpers';

/**
 * Test deliveries and dead-letter retries put a job on the `webhook-delivery` queue (Redis). With
 * Redis down the answer is a prompt 503 `SERVICE_UNAVAILABLE`, never a request that hangs until Redis
 * is back, and a dead letter whose retry could not be queued stays a dead letter (retryable later).
 */
describe('org API: webhook test deliveries and dead-letter retries while the queue is down', () => {
  let redis: RedisProcess;
  let api: OrgApi;
  let owner: Session;
  let redisDown = false;
  beforeAll(async () => {
    redis = await startRedisProcess();
    api = await OrgApi.boot({ REDIS_URL: redis.url });
    owner = await api.loginOwner();
  });
  afterAll(async () => {
    if (redisDown) await redis.start(); // a failed run: let the service close its queues cleanly
    await api?.stop();
    await redis?.stop();
  });

  /** A request that gives up after `ms`, so a hang fails the test instead of the suite. */
  const post = async (path: string, body?: Json, ms = 8_000): Promise<{ status: number | 'no answer'; body: Json; elapsedMs: number }> => {
    const started = Date.now();
    const headers: Record<string, string> = { authorization: `Bearer ${owner.token}` };
    if (body) headers['content-type'] = 'application/json';
    try {
      const res = await fetch(`${api.base}${path}`, { method: 'POST', headers, body: body ? JSON.stringify(body) : undefined, signal: AbortSignal.timeout(ms) });
      return { status: res.status, body: (await res.json()) as Json, elapsedMs: Date.now() - started };
    } catch {
      return { status: 'no answer', body: {}, elapsedMs: Date.now() - started };
    }
  };

  it('answers 503 SERVICE_UNAVAILABLE within seconds, leaves the dead letter retryable, and queues once Redis is back', async () => {
    const hook = (await api.call('POST', '/api/v1/admin/webhooks', { token: owner.token, body: { url: 'https://8.8.8.8/outage', events: ['budget.exceeded'] } })).body;
    const org = asOrgId(owner.orgId);
    const event = createEvent('budget.exceeded', owner.orgId, { blocked_by: 'daily_budget', daily_spent: 10, daily_budget: 10, model: 'gpt-4o', estimated_cost: 0.1, timestamp: new Date().toISOString() }, EVENT_SOURCES.gateway);
    const created = await api.repos.webhookDeliveries.create(org, { webhook_id: hook.id, event_id: event.id, event_type: event.type, url: hook.url, payload: JSON.stringify(event) });
    await api.repos.webhookDeliveries.recordAttempt(org, created._id, { status: 'failed', status_code: 503, latency_ms: 12, error: 'HTTP 503', retry_count: 5 });
    const dead = await api.repos.webhookDeliveries.markDeadLetter(org, created._id);

    await redis.stop();
    redisDown = true;
    const retryPath = `/api/v1/admin/webhooks/${hook.id}/deliveries/${created._id}/retry`;
    for (const [path, body] of [['/api/v1/webhooks/deliver', { webhook_id: hook.id }], [retryPath, undefined]] as const) {
      const res = await post(path, body);
      expect({ path, status: res.status, code: res.body.error?.code }).toEqual({ path, status: 503, code: 'SERVICE_UNAVAILABLE' });
      expect(res.elapsedMs).toBeLessThan(5_000);
    }
    // Nothing was queued: the record is the dead letter it was, so it can be retried later.
    expect(await api.repos.webhookDeliveries.findById(org, created._id)).toMatchObject({
      status: 'dead_letter',
      dead_letter: true,
      status_code: 503,
      error: 'HTTP 503',
      retry_count: 5,
      next_attempt_at: null,
      last_attempt_at: dead?.last_attempt_at,
    });

    await redis.start();
    redisDown = false;
    const retried = await post(retryPath);
    expect({ status: retried.status, delivery_id: retried.body.delivery_id }).toEqual({ status: 202, delivery_id: created._id });
    expect(await api.repos.webhookDeliveries.findById(org, created._id)).toMatchObject({ status: 'pending', dead_letter: false });
  });
});
