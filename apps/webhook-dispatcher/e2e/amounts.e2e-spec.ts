import { asOrgId } from '@svc/domain';
import { createEvent, EVENT_SOURCES, GatewayEvent } from '@svc/events';
import { anomalyScenarios, TestService } from '@svc/testing';
import { bootDispatcher, newOrg, Receiver, seedWebhook, verifyDelivery } from './dispatcher.helpers';

const SECRET = 'whsec_U21hbGxBbW91bnRzU2VjcmV0S2V5Rm9yVGVzdHMh';
const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

/**
 * Dollar amounts in what a person reads (team-chat summaries, anomaly messages) keep their digits
 * down to fractions of a micro-dollar (`formatUsd`), while the event's JSON numbers stay as they are.
 * Embedded mode (in-process queues): no Redis database of its own needed.
 */
describe('webhook dispatcher: small dollar amounts in readable text', () => {
  let receiver: Receiver;
  let service: TestService;

  beforeAll(async () => {
    receiver = await Receiver.start();
    service = await bootDispatcher({ ANOMALY_CHECK_INTERVAL_MS: '200' });
  });
  afterAll(async () => {
    await service?.stop();
    await receiver?.close();
  });

  const chatTo = (orgId: string, path: string) =>
    service.runtime.repositories.chatIntegrations.put(asOrgId(orgId), {
      url: service.runtime.cipher.encrypt(orgId, receiver.url(path)),
      url_hint: 'http://127.0.0.1/…chat',
    });

  /** Publishes an approval.requested for a new organization (one per event: the 60 s dedup is per organization and type). */
  const approvalRequested = async (id: string, estimated_cost: number, hitl_threshold: number) => {
    const orgId = await newOrg(service);
    await seedWebhook(service, orgId, receiver.url(`/amounts/${id}`), ['approval.requested'], SECRET);
    await chatTo(orgId, `/amounts/${id}-chat`);
    const data = { request_id: `gw_${id}`, model: 'gpt-4o-mini', estimated_cost, hitl_threshold, approval_id: `apr_${id}`, timestamp: new Date().toISOString() };
    await service.runtime.events.publisher.publish(createEvent('approval.requested', orgId, data, EVENT_SOURCES.gateway) as GatewayEvent);
    const [delivered] = await receiver.waitFor(`/amounts/${id}`, 1);
    const [chat] = await receiver.waitFor(`/amounts/${id}-chat`, 1);
    expect(await verifyDelivery(delivered, SECRET)).toEqual({ hmac: true, standard: true });
    return { data: (JSON.parse(delivered.body) as GatewayEvent<'approval.requested'>).data, text: (JSON.parse(chat.body) as { text: string }).text };
  };

  it('summarises an approval.requested with a sub-cent threshold without $0.0000, and keeps the numbers in the webhook', async () => {
    // A tenth of a micro-dollar: was "estimated $0.0000 is above the $0.0000 threshold".
    const tiny = await approvalRequested('tiny', 0.00000025, 0.0000001);
    expect(tiny.text).toBe('Approval requested (apr_tiny): request gw_tiny for gpt-4o-mini, estimated $0.00000025 is above the $0.0000001 threshold');
    expect(tiny.data).toMatchObject({ estimated_cost: 0.00000025, hitl_threshold: 0.0000001 });

    // Between a cent and a dollar: was "estimated $0.02 is above the $0.02 threshold".
    const cents = await approvalRequested('cents', 0.0151, 0.015);
    expect(cents.text).toBe('Approval requested (apr_cents): request gw_cents for gpt-4o-mini, estimated $0.0151 is above the $0.015 threshold');
    expect(cents.data).toMatchObject({ estimated_cost: 0.0151, hitl_threshold: 0.015 });
  });

  it('a model_drift alert on micro-dollar requests shows their amounts in its message and its summary', async () => {
    const orgId = await newOrg(service);
    await seedWebhook(service, orgId, receiver.url('/amounts/drift'), ['cost_anomaly.model_drift'], SECRET);
    await chatTo(orgId, '/amounts/drift-chat');
    // 20 short gpt-4o-mini requests at $0.0000002 over the previous day, then 6 on gpt-4o at $0.0000015.
    const now = Date.now();
    const record = (at: number, cost: number, model: string) => anomalyScenarios.usageRecord(orgId, at, { cost, model, agent: 'summarizer' });
    await service.runtime.repositories.usage.recordBatch([
      ...Array.from({ length: 20 }, (_, i) => record(now - HOUR_MS - (i + 1) * HOUR_MS, 0.0000002, 'gpt-4o-mini')),
      ...Array.from({ length: 6 }, (_, i) => record(now - (i + 1) * 5 * MINUTE_MS, 0.0000015, 'gpt-4o')),
    ]);

    const [delivered] = await receiver.waitFor('/amounts/drift', 1, 20_000);
    const event = JSON.parse(delivered.body) as GatewayEvent<'cost_anomaly.model_drift'>;
    const message = 'Agent "summarizer" switched to gpt-4o from gpt-4o-mini: $0.0000015 per request in the last hour, 7.5x the $0.0000002 before';
    expect(event.data).toMatchObject({ anomaly_type: 'model_drift', current_value: 0.0000015, threshold_value: 0.000001, multiplier: 7.5, message });
    const [chat] = await receiver.waitFor('/amounts/drift-chat', 1);
    expect(JSON.parse(chat.body)).toEqual({
      text: `Cost anomaly model_drift (medium): ${message} [current $0.0000015, threshold $0.000001, x7.5]`,
    });
  }, 30_000);
});
