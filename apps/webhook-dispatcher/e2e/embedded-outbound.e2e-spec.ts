import { asOrgId } from '@svc/domain';
import { describeEvent } from '@svc/events';
import type { TestService } from '@svc/testing';
import { bootDispatcher, newOrg, Receiver, sampleEvent, seedWebhook, sleep, verifyDelivery, waitUntil } from './dispatcher.helpers';

const SECRET = 'whsec_RW1iZWRkZWRNb2RlU2VjcmV0S2V5Rm9yVGVzdHMh';

/** Without REDIS_URL (what `npm start` runs): in-process queues and an in-memory dedup window. */
describe('webhook dispatcher in the embedded mode, and outbound safety', () => {
  let receiver: Receiver;
  const services: TestService[] = [];
  const boot = async (env: Record<string, string>) => {
    const service = await bootDispatcher(env);
    services.push(service);
    return service;
  };

  beforeAll(async () => {
    receiver = await Receiver.start();
  });
  afterAll(async () => {
    for (const service of services) await service.stop();
    await receiver.close();
  });

  it('delivers and posts to team chat on the in-process queues', async () => {
    const service = await boot({});
    expect(service.runtime.events.kind).toBe('in-process');
    const orgId = await newOrg(service);
    await seedWebhook(service, orgId, receiver.url('/embedded'), ['budget.exceeded', 'guardrail.triggered'], SECRET);
    await service.runtime.repositories.chatIntegrations.put(asOrgId(orgId), {
      url: service.runtime.cipher.encrypt(orgId, receiver.url('/embedded-chat')),
      url_hint: 'http://127.0.0.1/…chat',
    });
    const event = sampleEvent('budget.exceeded', orgId);
    await service.runtime.events.publisher.publish(event);
    await service.runtime.events.publisher.publish(sampleEvent('budget.exceeded', orgId)); // within the dedup window
    const [delivered] = await receiver.waitFor('/embedded', 1);
    expect(delivered.headers['webhook-id']).toBe(event.id);
    expect(await verifyDelivery(delivered, SECRET)).toEqual({ hmac: true, standard: true });
    const [chat] = await receiver.waitFor('/embedded-chat', 1);
    expect(JSON.parse(chat.body)).toEqual({ text: describeEvent(event) });
    await sleep(200);
    expect(receiver.on('/embedded')).toHaveLength(1);
  });

  it('refuses a private address without OUTBOUND_ALLOW_PRIVATE_NETWORKS: no request, a dead letter at once', async () => {
    const service = await boot({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'false' });
    const orgId = await newOrg(service);
    const hook = await seedWebhook(service, orgId, receiver.url('/private'), ['budget.exceeded'], SECRET);
    const named = await seedWebhook(service, orgId, receiver.url('/private').replace('127.0.0.1', 'localhost'), ['budget.exceeded'], SECRET);
    await service.runtime.repositories.chatIntegrations.put(asOrgId(orgId), {
      url: service.runtime.cipher.encrypt(orgId, receiver.url('/private-chat')),
      url_hint: 'http://127.0.0.1/…chat',
    });
    const event = sampleEvent('budget.exceeded', orgId);
    await service.runtime.events.publisher.publish(event);
    const deliveries = service.runtime.repositories.webhookDeliveries;
    for (const webhook of [hook, named]) {
      await waitUntil(async () => (await deliveries.findByEvent(asOrgId(orgId), webhook._id, event.id))?.dead_letter === true, 3_000, 'a dead letter');
      expect(await deliveries.findByEvent(asOrgId(orgId), webhook._id, event.id)).toMatchObject({
        status: 'dead_letter',
        status_code: null,
        retry_count: 0,
        error: expect.stringMatching(/^refused by outbound safety: Outbound requests to .* are not allowed: the address is in a non-public range \(loopback\)$/),
      });
    }
    await waitUntil(
      async () => (await service.runtime.repositories.chatIntegrations.get(asOrgId(orgId)))?.last_error?.startsWith('refused by outbound safety') === true,
      3_000,
      'the refused chat post',
    );
    expect(receiver.on('/private')).toEqual([]);
    expect(receiver.on('/private-chat')).toEqual([]);
  });

  it('refuses http:// receivers without WEBHOOK_ALLOW_HTTP', async () => {
    const service = await boot({ WEBHOOK_ALLOW_HTTP: 'false' });
    const orgId = await newOrg(service);
    const hook = await seedWebhook(service, orgId, receiver.url('/plain-http'), ['approval.requested'], SECRET);
    const event = sampleEvent('approval.requested', orgId);
    await service.runtime.events.publisher.publish(event);
    const deliveries = service.runtime.repositories.webhookDeliveries;
    await waitUntil(async () => (await deliveries.findByEvent(asOrgId(orgId), hook._id, event.id))?.dead_letter === true, 3_000, 'a dead letter');
    expect((await deliveries.findByEvent(asOrgId(orgId), hook._id, event.id))?.error).toBe('refused by outbound safety: The URL must use https://');
    expect(receiver.on('/plain-http')).toEqual([]);
  });
});
