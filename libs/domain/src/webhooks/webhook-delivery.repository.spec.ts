import { storeTargets } from '../testing/stores';
import { expectTenantIsolation, ORG_A, ORG_B, useRepository } from '../testing/jest-helpers';
import { DELIVERY_RETENTION_MS } from './webhook-delivery.entity';
import { NewWebhookDelivery, WebhookDeliveryRepository } from './webhook-delivery.repository';

const delivery = (webhookId = 'whk_1'): NewWebhookDelivery => ({
  webhook_id: webhookId,
  event_id: 'evt_1',
  event_type: 'budget.exceeded',
  url: 'https://hooks.example.com/a',
  payload: '{"id":"evt_1"}',
});

describe.each(storeTargets(process.env.MONGODB_URI))('WebhookDeliveryRepository ($name)', (target) => {
  const t = useRepository(target, (store) => new WebhookDeliveryRepository(store));
  const now = () => new Date(t.ctx.clock.now());

  it('creates a pending delivery kept 30 days', async () => {
    const created = await t.repo.create(ORG_A, delivery(), now());
    expect(created).toMatchObject({ status: 'pending', retry_count: 0, dead_letter: false, status_code: null });
    expect(created._id).toMatch(/^dlv_/);
    expect(created.expires_at.getTime() - created.created_at.getTime()).toBe(DELIVERY_RETENTION_MS);
  });

  it('records attempts with status code, latency, retries and error', async () => {
    const created = await t.repo.create(ORG_A, delivery(), now());
    const failed = await t.repo.recordAttempt(ORG_A, created._id, {
      status: 'failed',
      status_code: 503,
      latency_ms: 120,
      error: 'HTTP 503',
      retry_count: 1,
      next_attempt_at: new Date(t.ctx.clock.now() + 2000),
    });
    expect(failed).toMatchObject({ status: 'failed', status_code: 503, latency_ms: 120, retry_count: 1, error: 'HTTP 503', delivered_at: null });
    const ok = await t.repo.recordAttempt(ORG_A, created._id, { status: 'succeeded', status_code: 200, latency_ms: 80, error: null, retry_count: 2 });
    expect(ok).toMatchObject({ status: 'succeeded', next_attempt_at: null });
    expect(ok?.delivered_at).toBeInstanceOf(Date);
  });

  it('moves deliveries to the dead-letter queue, lists and requeues them', async () => {
    const a = await t.repo.create(ORG_A, delivery('whk_1'), now());
    await t.repo.create(ORG_A, delivery('whk_1'), now());
    await t.repo.markDeadLetter(ORG_A, a._id, now());
    expect((await t.repo.listDeadLetters(ORG_A, 'whk_1')).items.map((d) => d._id)).toEqual([a._id]);
    expect((await t.repo.listByWebhook(ORG_A, 'whk_1')).total).toBe(2);
    expect(await t.repo.requeueDeadLetter(ORG_A, 'whk_other', a._id)).toBeNull();
    expect(await t.repo.requeueDeadLetter(ORG_A, 'whk_1', a._id)).toMatchObject({ status: 'pending', dead_letter: false });
    expect((await t.repo.listDeadLetters(ORG_A)).total).toBe(0);
  });

  it('forgets a dead letter 30 days after it became one', async () => {
    const created = await t.repo.create(ORG_A, delivery(), now());
    t.ctx.clock.advance(20 * 24 * 3600_000);
    await t.repo.markDeadLetter(ORG_A, created._id, now());
    t.ctx.clock.advance(29 * 24 * 3600_000);
    expect((await t.repo.listDeadLetters(ORG_A)).total).toBe(1);
    t.ctx.clock.advance(2 * 24 * 3600_000);
    expect((await t.repo.listDeadLetters(ORG_A)).total).toBe(0);
  });

  it('isolates tenants', async () => {
    const created = await t.repo.create(ORG_A, delivery(), now());
    await expectTenantIsolation(t.repo, created, { payload: '{}' });
    expect(await t.repo.recordAttempt(ORG_B, created._id, { status: 'succeeded', status_code: 200, latency_ms: 1, error: null, retry_count: 0 })).toBeNull();
    expect(await t.repo.markDeadLetter(ORG_B, created._id)).toBeNull();
    expect((await t.repo.listByWebhook(ORG_B, 'whk_1')).total).toBe(0);
    expect(await t.repo.deleteByWebhook(ORG_B, 'whk_1')).toBe(0);
    expect(await t.repo.findById(ORG_A, created._id)).toEqual(created);
  });
});
