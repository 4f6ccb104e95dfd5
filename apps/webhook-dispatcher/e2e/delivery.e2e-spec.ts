import { asOrgId, WebhookDeliveryEntity } from '@svc/domain';
import { describeEvent, eventUnixTime, GatewayEvent, webhookRetrySchedule } from '@svc/events';
import type { TestService } from '@svc/testing';
import { bootDispatcher, cleanRedis, newOrg, Receiver, redisUrl, sampleEvent, seedWebhook, sleep, verifyDelivery, waitUntil } from './dispatcher.helpers';

const REDIS_URL = redisUrl(11);
const GENERATED_SECRET = 'whsec_Q2hhbmdlTWVQbGVhc2VDaGFuZ2VNZVBsZWFzZTEy';
const CHOSEN_SECRET = 'my-own-signing-secret-123';

describe('webhook dispatcher: signed delivery, retries, dead letters, dedup, disabling, team chat', () => {
  let service: TestService;
  let receiver: Receiver;
  const publish = (event: GatewayEvent) => service.runtime.events.publisher.publish(event);
  const deliveryOf = async (orgId: string, webhookId: string, eventId: string) =>
    service.runtime.repositories.webhookDeliveries.findByEvent(asOrgId(orgId), webhookId, eventId);
  const webhook = (orgId: string, id: string) => service.runtime.repositories.webhooks.findById(asOrgId(orgId), id);
  const untilDelivery = async (orgId: string, webhookId: string, eventId: string, check: (d: WebhookDeliveryEntity) => boolean) => {
    let found: WebhookDeliveryEntity | null = null;
    await waitUntil(async () => {
      found = await deliveryOf(orgId, webhookId, eventId);
      return !!found && check(found);
    }, 8_000, `delivery record of ${eventId}`);
    return found as unknown as WebhookDeliveryEntity;
  };

  beforeAll(async () => {
    receiver = await Receiver.start();
    service = await bootDispatcher({ REDIS_URL, WEBHOOK_TIMEOUT_MS: '500' });
  });
  afterAll(async () => {
    await service?.stop();
    await receiver?.close();
    await cleanRedis(REDIS_URL);
  });

  it('delivers a signed CloudEvent to every active subscribed webhook, once, and a summary to the team chat', async () => {
    const orgId = await newOrg(service);
    const a = await seedWebhook(service, orgId, receiver.url('/a'), ['budget.exceeded'], GENERATED_SECRET);
    const b = await seedWebhook(service, orgId, receiver.url('/b'), ['guardrail.triggered', 'budget.exceeded'], CHOSEN_SECRET);
    await seedWebhook(service, orgId, receiver.url('/not-subscribed'), ['approval.requested'], CHOSEN_SECRET);
    const off = await seedWebhook(service, orgId, receiver.url('/disabled'), ['budget.exceeded'], CHOSEN_SECRET);
    await service.runtime.repositories.webhooks.disable(asOrgId(orgId), off._id, 'disabled by a user');
    await service.runtime.repositories.chatIntegrations.put(asOrgId(orgId), {
      url: service.runtime.cipher.encrypt(orgId, receiver.url('/chat/org1')),
      url_hint: 'http://127.0.0.1/…org1',
    });

    const event = sampleEvent('budget.exceeded', orgId);
    await publish(event);
    const [toA] = await receiver.waitFor('/a', 1);
    const [toB] = await receiver.waitFor('/b', 1);
    const [chat] = await receiver.waitFor('/chat/org1', 1);

    for (const [request, secret] of [[toA, GENERATED_SECRET], [toB, CHOSEN_SECRET]] as const) {
      expect(JSON.parse(request.body)).toEqual(event);
      expect(request.headers).toMatchObject({
        'content-type': 'application/json',
        'x-webhook-event': 'budget.exceeded',
        'x-webhook-timestamp': String(eventUnixTime(event)),
        'x-webhook-signature': expect.stringMatching(/^sha256=[0-9a-f]{64}$/),
        'webhook-id': event.id,
        'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]+=*$/),
      });
      expect(Math.abs(Number(request.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(10);
      expect(await verifyDelivery(request, secret)).toEqual({ hmac: true, standard: true });
    }
    // Each secret signs only its own webhook's deliveries.
    expect(await verifyDelivery(toA, CHOSEN_SECRET)).toEqual({ hmac: false, standard: false });
    expect(JSON.parse(chat.body)).toEqual({ text: describeEvent(event) });

    expect(await untilDelivery(orgId, a._id, event.id, (d) => d.status === 'succeeded')).toMatchObject({
      status_code: 200,
      retry_count: 0,
      error: null,
      dead_letter: false,
      latency_ms: expect.any(Number),
      delivered_at: expect.any(Date),
      last_attempt_at: expect.any(Date),
    });
    expect(await untilDelivery(orgId, b._id, event.id, (d) => d.status === 'succeeded')).toMatchObject({ status_code: 200, retry_count: 0 });
    await waitUntil(async () => (await service.runtime.repositories.chatIntegrations.get(asOrgId(orgId)))?.last_delivery_at instanceof Date, 3_000, 'chat delivery recorded');

    // Published again (the same event id): nothing is delivered twice.
    await publish(event);
    await sleep(300);
    expect(receiver.on('/a')).toHaveLength(1);
    expect(receiver.on('/b')).toHaveLength(1);
    expect(receiver.on('/chat/org1')).toHaveLength(1);
    expect(receiver.on('/not-subscribed')).toEqual([]);
    expect(receiver.on('/disabled')).toEqual([]);
  });

  it('retries after 1, 2, 4, 8, 16 x the base, then dead-letters the delivery (manual retry: dead-letter-retry.e2e-spec.ts)', async () => {
    const orgId = await newOrg(service);
    receiver.behave('/flaky', () => ({ status: 503, body: 'maintenance' }));
    const hook = await seedWebhook(service, orgId, receiver.url('/flaky'), ['approval.requested'], GENERATED_SECRET);
    const event = sampleEvent('approval.requested', orgId);
    await publish(event);

    const attempts = await receiver.waitFor('/flaky', 6);
    const gaps = attempts.slice(1).map((request, i) => request.at - attempts[i].at);
    const schedule = webhookRetrySchedule(20);
    expect(schedule).toEqual([20, 40, 80, 160, 320]);
    // Each wait at least its step of the schedule; the slack above it only absorbs a loaded CI machine
    // (with the default 1 s base the whole schedule would take 31 s, not well under 4).
    const onSchedule = gaps.map((gap, i) => gap >= schedule[i] - 5 && gap < schedule[i] + 750);
    expect({ gaps, onSchedule }).toEqual({ gaps, onSchedule: [true, true, true, true, true] });
    expect(gaps.reduce((sum, gap) => sum + gap, 0)).toBeLessThan(4_000);
    for (const request of attempts) {
      expect(request.headers['webhook-id']).toBe(event.id);
      expect(request.body).toBe(attempts[0].body);
      expect(await verifyDelivery(request, GENERATED_SECRET)).toEqual({ hmac: true, standard: true });
    }
    const dead = await untilDelivery(orgId, hook._id, event.id, (d) => d.dead_letter);
    expect(dead).toMatchObject({ status: 'dead_letter', status_code: 503, retry_count: 5, error: 'HTTP 503: maintenance', next_attempt_at: null });
    expect((await webhook(orgId, hook._id))?.consecutive_failures).toBe(1);
    await sleep(100);
    expect(receiver.on('/flaky')).toHaveLength(6);
  });

  it('delivers only the first event per organization and type within the dedup window', async () => {
    const [orgId, otherOrg] = [await newOrg(service), await newOrg(service)];
    await seedWebhook(service, orgId, receiver.url('/dedup'), ['guardrail.triggered', 'budget.warning'], CHOSEN_SECRET);
    await seedWebhook(service, otherOrg, receiver.url('/dedup-other'), ['guardrail.triggered'], CHOSEN_SECRET);
    const first = sampleEvent('guardrail.triggered', orgId);
    const repeat = sampleEvent('guardrail.triggered', orgId);
    const otherType = sampleEvent('budget.warning', orgId);
    const otherOrgs = sampleEvent('guardrail.triggered', otherOrg);
    await publish(first);
    await receiver.waitFor('/dedup', 1);
    for (const event of [repeat, otherType, otherOrgs]) await publish(event);
    await receiver.waitFor('/dedup', 2);
    await receiver.waitFor('/dedup-other', 1);
    await sleep(300);
    expect(receiver.on('/dedup').map((r) => r.headers['webhook-id'])).toEqual([first.id, otherType.id]);
    expect(receiver.on('/dedup-other').map((r) => r.headers['webhook-id'])).toEqual([otherOrgs.id]);
  });

  it('disables the webhook on a 410 without retrying, and delivers nothing more to it', async () => {
    const orgId = await newOrg(service);
    receiver.behave('/gone', () => ({ status: 410 }));
    const hook = await seedWebhook(service, orgId, receiver.url('/gone'), ['budget.warning', 'budget.exceeded'], CHOSEN_SECRET);
    const event = sampleEvent('budget.warning', orgId);
    await publish(event);
    await receiver.waitFor('/gone', 1);
    expect(await untilDelivery(orgId, hook._id, event.id, (d) => d.dead_letter)).toMatchObject({ status_code: 410, retry_count: 0 });
    expect(await webhook(orgId, hook._id)).toMatchObject({ status: 'disabled', disabled_reason: 'the receiver answered 410 Gone' });
    await publish(sampleEvent('budget.exceeded', orgId));
    await sleep(300);
    expect(receiver.on('/gone')).toHaveLength(1);
  });

  it('counts a redirect as a failure and never calls its Location', async () => {
    const orgId = await newOrg(service);
    receiver.behave('/moved', () => ({ status: 307, headers: { Location: receiver.url('/moved-target') } }));
    const hook = await seedWebhook(service, orgId, receiver.url('/moved'), ['budget.exceeded'], CHOSEN_SECRET);
    const event = sampleEvent('budget.exceeded', orgId);
    await publish(event);
    const dead = await untilDelivery(orgId, hook._id, event.id, (d) => d.dead_letter);
    expect(dead).toMatchObject({ status_code: 307, error: 'HTTP 307 (redirects are not followed)', retry_count: 5 });
    expect(receiver.on('/moved')).toHaveLength(6);
    expect(receiver.on('/moved-target')).toEqual([]);
  });

  it('fails an attempt when the receiver is slower than the timeout, then retries', async () => {
    const orgId = await newOrg(service);
    receiver.behave('/slow', (_request, nth) => ({ status: 200, delayMs: nth === 1 ? 1_500 : 300 }));
    const hook = await seedWebhook(service, orgId, receiver.url('/slow'), ['budget.exceeded'], CHOSEN_SECRET);
    const event = sampleEvent('budget.exceeded', orgId);
    await publish(event);
    const timedOut = await untilDelivery(orgId, hook._id, event.id, (d) => d.status === 'failed');
    expect(timedOut).toMatchObject({ status_code: null, error: 'timed out after 500 ms', retry_count: 0 });
    expect(timedOut.latency_ms).toBeGreaterThanOrEqual(490);
    expect(timedOut.latency_ms).toBeLessThan(1_400);
    expect(await untilDelivery(orgId, hook._id, event.id, (d) => d.status === 'succeeded')).toMatchObject({ retry_count: 1, status_code: 200 });
  });

  it('cuts a body the receiver trickles at the timeout, so the attempt ends and the retries follow', async () => {
    const orgId = await newOrg(service);
    receiver.behave('/drip', (_request, nth) => ({ status: nth === 1 ? 503 : 200, dripMs: 50 }));
    const hook = await seedWebhook(service, orgId, receiver.url('/drip'), ['budget.exceeded'], CHOSEN_SECRET);
    const event = sampleEvent('budget.exceeded', orgId);
    await publish(event);
    // Without the cut the first attempt reads the never-ending body for as long as the receiver drips.
    const failed = await untilDelivery(orgId, hook._id, event.id, (d) => d.status === 'failed');
    expect(failed).toMatchObject({ status_code: 503, error: expect.stringMatching(/^HTTP 503: \.+$/), retry_count: 0 });
    expect(await untilDelivery(orgId, hook._id, event.id, (d) => d.status === 'succeeded')).toMatchObject({ status_code: 200, retry_count: 1 });
    expect(receiver.on('/drip')).toHaveLength(2);
  });

  it('disables a webhook at its 50th consecutive failed delivery; a success resets the count', async () => {
    const orgId = await newOrg(service);
    const org = asOrgId(orgId);
    receiver.behave('/broken', () => ({ status: 500 }));
    const broken = await seedWebhook(service, orgId, receiver.url('/broken'), ['budget.exceeded'], CHOSEN_SECRET);
    const recovering = await seedWebhook(service, orgId, receiver.url('/recovering'), ['budget.exceeded'], CHOSEN_SECRET);
    for (const hook of [broken, recovering]) await service.runtime.repositories.webhooks.updateById(org, hook._id, { consecutive_failures: 49 });
    const event = sampleEvent('budget.exceeded', orgId);
    await publish(event);
    await untilDelivery(orgId, broken._id, event.id, (d) => d.dead_letter);
    await waitUntil(async () => (await webhook(orgId, broken._id))?.status === 'disabled', 3_000, 'the webhook to be disabled');
    expect(await webhook(orgId, broken._id)).toMatchObject({ consecutive_failures: 50, disabled_reason: '50 consecutive failed deliveries' });
    await untilDelivery(orgId, recovering._id, event.id, (d) => d.status === 'succeeded');
    expect(await webhook(orgId, recovering._id)).toMatchObject({ status: 'active', consecutive_failures: 0 });
  });

  it('retries a failing team-chat post and records the outcome on the integration', async () => {
    const orgId = await newOrg(service);
    receiver.behave('/chat/flaky', (_request, nth) => (nth < 3 ? { status: 500 } : { status: 200, body: 'ok' }));
    await service.runtime.repositories.chatIntegrations.put(asOrgId(orgId), {
      url: service.runtime.cipher.encrypt(orgId, receiver.url('/chat/flaky')),
      url_hint: 'http://127.0.0.1/…laky',
      events: ['agent.failed', 'budget.warning'],
    });
    await publish(sampleEvent('budget.exceeded', orgId)); // not in the integration's list
    const event = sampleEvent('budget.warning', orgId);
    await publish(event);
    const posts = await receiver.waitFor('/chat/flaky', 3);
    expect(posts.map((p) => JSON.parse(p.body))).toEqual([0, 1, 2].map(() => ({ text: describeEvent(event) })));
    await waitUntil(
      async () => {
        const integration = await service.runtime.repositories.chatIntegrations.get(asOrgId(orgId));
        return integration?.last_delivery_at instanceof Date && integration.last_error === null;
      },
      3_000,
      'the chat success to be recorded',
    );
  });
});
