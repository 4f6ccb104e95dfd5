import { storeTargets } from '../testing/stores';
import { expectTenantIsolation, ORG_A, ORG_B, useRepository } from '../testing/jest-helpers';
import { DuplicateKeyError } from '../store/types';
import { DELIVERY_RETENTION_MS, WEBHOOK_DELIVERIES } from './webhook-delivery.entity';
import { NewWebhookDelivery, WebhookDeliveryRepository } from './webhook-delivery.repository';

const delivery = (webhookId = 'whk_1', eventId = 'evt_1'): NewWebhookDelivery => ({
  webhook_id: webhookId,
  event_id: eventId,
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
    await t.repo.create(ORG_A, delivery('whk_1', 'evt_2'), now());
    expect(await t.repo.markDeadLetter(ORG_A, a._id, now())).toMatchObject({ status: 'dead_letter', dead_letter: true, next_attempt_at: null });
    expect(await t.repo.markDeadLetter(ORG_A, a._id, now())).toBeNull();
    expect((await t.repo.listDeadLetters(ORG_A, 'whk_1')).items.map((d) => d._id)).toEqual([a._id]);
    expect((await t.repo.listByWebhook(ORG_A, 'whk_1')).total).toBe(2);
    expect(await t.repo.requeueDeadLetter(ORG_A, 'whk_other', a._id, 'job.retry')).toBeNull();
    expect(await t.repo.requeueDeadLetter(ORG_A, 'whk_1', a._id, 'job.retry')).toMatchObject({ status: 'pending', dead_letter: false, attempt: 0, job_id: 'job.retry' });
    expect((await t.repo.listDeadLetters(ORG_A)).total).toBe(0);
  });

  it('keeps one record per event and webhook: a unique index that also serves findByEvent', async () => {
    const first = await t.repo.create(ORG_A, delivery('whk_1', 'evt_1'), now());
    const error = await t.repo.create(ORG_A, delivery('whk_1', 'evt_1'), now()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DuplicateKeyError);
    expect(error).toMatchObject({ index: 'org_webhook_event_unique', fields: ['org_id', 'webhook_id', 'event_id'] });
    // The same event to another webhook, or the same ids in another organization, are other records.
    await t.repo.create(ORG_A, delivery('whk_2', 'evt_1'), now());
    await t.repo.create(ORG_B, delivery('whk_1', 'evt_1'), now());
    expect(await t.repo.findByEvent(ORG_A, 'whk_1', 'evt_1')).toEqual(first);
    expect(WEBHOOK_DELIVERIES.indexes.find((index) => index.name === 'org_webhook_event_unique')).toMatchObject({
      fields: { org_id: 1, webhook_id: 1, event_id: 1 },
      unique: true,
      comment: expect.stringContaining('findByEvent'),
    });
  });

  it('finds or creates the record with one upsert: overlapping runs share one record', async () => {
    const runs = await Promise.all([1, 2, 3, 4, 5].map(() => t.repo.findOrCreate(ORG_A, delivery('whk_1', 'evt_race'), now())));
    expect(new Set(runs.map((run) => run._id)).size).toBe(1);
    expect(runs[0]).toMatchObject({ org_id: ORG_A, webhook_id: 'whk_1', event_id: 'evt_race', status: 'pending', retry_count: 0, dead_letter: false });
    expect((await t.repo.listByWebhook(ORG_A, 'whk_1')).total).toBe(1);
    // An existing record comes back as it is: attempts and the stored body are kept.
    await t.repo.recordAttempt(ORG_A, runs[0]._id, { status: 'failed', status_code: 500, latency_ms: 5, error: 'HTTP 500', retry_count: 0 });
    const again = await t.repo.findOrCreate(ORG_A, { ...delivery('whk_1', 'evt_race'), payload: '{"other":true}' }, now());
    expect(again).toMatchObject({ _id: runs[0]._id, status: 'failed', status_code: 500, payload: '{"id":"evt_1"}' });
    expect(await t.repo.findOrCreate(ORG_B, delivery('whk_1', 'evt_race'), now())).not.toMatchObject({ _id: runs[0]._id });
  });

  it('records the final attempt and the dead letter in one write, once', async () => {
    const created = await t.repo.create(ORG_A, delivery(), now());
    const dead = await t.repo.recordDeadLetter(ORG_A, created._id, { status_code: 503, latency_ms: 30, error: 'HTTP 503', retry_count: 5 }, now());
    expect(dead).toMatchObject({ status: 'dead_letter', dead_letter: true, status_code: 503, error: 'HTTP 503', retry_count: 5, next_attempt_at: null, delivered_at: null });
    expect(dead?.last_attempt_at).toEqual(now());
    expect(dead?.expires_at.getTime()).toBe(t.ctx.clock.now() + DELIVERY_RETENTION_MS);
    // A re-run of the same end changes nothing and says so.
    expect(await t.repo.recordDeadLetter(ORG_A, created._id, { status_code: 500, latency_ms: 1, error: 'HTTP 500', retry_count: 5 }, now())).toBeNull();
    expect(await t.repo.findById(ORG_A, created._id)).toMatchObject({ status_code: 503, error: 'HTTP 503' });
    expect(await t.repo.recordDeadLetter(ORG_B, created._id, { status_code: 500, latency_ms: 1, error: 'x', retry_count: 0 })).toBeNull();
  });

  it('lists failed deliveries whose next attempt is overdue, every organization, oldest first, page by page', async () => {
    const at = (offsetMs: number) => new Date(t.ctx.clock.now() + offsetMs);
    const fail = async (org: typeof ORG_A, eventId: string, nextInMs: number) => {
      const created = await t.repo.create(org, delivery('whk_1', eventId), now());
      return t.repo.recordAttempt(org, created._id, {
        status: 'failed', status_code: 503, latency_ms: 5, error: 'HTTP 503', retry_count: 1, next_attempt_at: at(nextInMs), attempt: 2, job_id: `${eventId}.whk_1`,
      });
    };
    const b = await fail(ORG_B, 'evt_b', -120_000);
    const a = await fail(ORG_A, 'evt_a', -90_000);
    const c = await fail(ORG_A, 'evt_c', -90_000);
    await fail(ORG_A, 'evt_recent', -30_000);
    await fail(ORG_A, 'evt_future', 60_000);
    const dead = await t.repo.create(ORG_A, delivery('whk_1', 'evt_dead'), now());
    await t.repo.markDeadLetter(ORG_A, dead._id, now());
    const pending = await t.repo.create(ORG_A, delivery('whk_1', 'evt_pending'), at(-600_000));
    expect(pending.next_attempt_at).toEqual(at(-600_000));

    const before = at(-60_000);
    const all = await t.repo.listOverdueAcrossOrgs(before);
    const tied = [a, c].map((d) => ({ id: d?._id ?? '', event: d?.event_id })).sort((x, y) => (x.id < y.id ? -1 : 1));
    expect(all.map((d) => d.event_id)).toEqual(['evt_b', ...tied.map((d) => d.event)]);
    expect(all[0]).toMatchObject({ org_id: ORG_B, _id: b?._id, attempt: 2, job_id: 'evt_b.whk_1' });
    // A first attempt or a manual retry not made yet (its job lost with Redis's data), asked for by status.
    expect((await t.repo.listOverdueAcrossOrgs(before, 200, null, 'pending')).map((d) => d._id)).toEqual([pending._id]);
    const first = await t.repo.listOverdueAcrossOrgs(before, 2);
    const rest = await t.repo.listOverdueAcrossOrgs(before, 2, { next_attempt_at: first[1].next_attempt_at as Date, _id: first[1]._id });
    expect([...first, ...rest].map((d) => d._id)).toEqual(all.map((d) => d._id));
    expect(WEBHOOK_DELIVERIES.indexes.find((index) => index.fields.status === 1 && index.fields.next_attempt_at === 1)).toMatchObject({
      comment: expect.stringContaining('retry sweep'),
    });
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
