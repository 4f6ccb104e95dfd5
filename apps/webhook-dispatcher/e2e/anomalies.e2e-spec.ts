import { asOrgId, PlanTier, sealWebhookUrl, UsageRecordEntity } from '@svc/domain';
import { COST_ANOMALY_TYPES, costAnomalyEventType, GatewayEvent } from '@svc/events';
import { createRedis } from '@svc/platform';
import { anomalyScenarios, TestService } from '@svc/testing';
import { bootDispatcher, cleanRedis, newOrg, Receiver, redisUrl, sleep, verifyDelivery, waitUntil } from './dispatcher.helpers';

const REDIS_URL = redisUrl(13);
const SECRET = 'whsec_QW5vbWFseURldGVjdGlvblNlY3JldEtleUZvclQ=';
const INTERVAL_MS = 200;

describe('cost-anomaly detection: each rule fires once on seeded usage and stays quiet on normal traffic', () => {
  let service: TestService;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await Receiver.start();
    service = await bootDispatcher({ REDIS_URL, ANOMALY_CHECK_INTERVAL_MS: String(INTERVAL_MS) });
  });
  afterAll(async () => {
    await service?.stop();
    await receiver?.close();
    await cleanRedis(REDIS_URL);
  });

  it('delivers cost_anomaly.* webhooks with SPEC data, once per organization and rule within a rolling hour', async () => {
    const scenarios: [string, PlanTier, (orgId: string, now: number) => UsageRecordEntity[], string | null][] = [
      ['spike', 'growth', anomalyScenarios.hourlySpikeUsage, 'hourly_spike'],
      ['runaway', 'free', anomalyScenarios.runawayAgentUsage, 'runaway_agent'],
      ['drift', 'growth', anomalyScenarios.modelDriftUsage, 'model_drift'],
      ['surge', 'growth', anomalyScenarios.volumeSurgeUsage, 'volume_surge'],
      ['steady', 'growth', anomalyScenarios.steadyUsage, null],
      ['young', 'free', anomalyScenarios.shortHistoryUsage, null],
      ['heavier', 'growth', anomalyScenarios.heavierPromptsUsage, null],
    ];
    const orgs: { name: string; orgId: string; expected: string | null }[] = [];
    for (const [name, plan, , expected] of scenarios) {
      const orgId = await newOrg(service, plan);
      const events = COST_ANOMALY_TYPES.map((type) => costAnomalyEventType(type));
      const { repositories, cipher } = service.runtime;
      await repositories.webhooks.create(asOrgId(orgId), { ...sealWebhookUrl(cipher, orgId, receiver.url(`/anomaly/${name}`)), events, secret: cipher.encrypt(orgId, SECRET) });
      orgs.push({ name, orgId, expected });
    }
    // Each organization's usage lands in one batch, so a check never sees half of it.
    const now = Date.now();
    for (const [index, [, , usage]] of scenarios.entries()) await service.runtime.repositories.usage.recordBatch(usage(orgs[index].orgId, now));

    const anomalous = orgs.filter((org) => org.expected);
    await waitUntil(() => anomalous.every((org) => receiver.on(`/anomaly/${org.name}`).length > 0), 20_000, 'one anomaly per organization');
    await sleep(INTERVAL_MS * 5);

    for (const org of orgs) {
      const received = receiver.on(`/anomaly/${org.name}`);
      expect({ org: org.name, types: received.map((r) => r.headers['x-webhook-event']) }).toEqual({
        org: org.name,
        types: org.expected ? [`cost_anomaly.${org.expected}`] : [],
      });
      for (const request of received) {
        expect(await verifyDelivery(request, SECRET)).toEqual({ hmac: true, standard: true });
        const event = JSON.parse(request.body) as GatewayEvent;
        expect(event).toMatchObject({ orgid: org.orgId, source: '/svc/webhook-dispatcher', specversion: '1.0' });
        expect(event.data).toEqual({
          anomaly_id: expect.stringMatching(/^anom_/),
          anomaly_type: org.expected,
          severity: expect.stringMatching(/^(medium|high|critical)$/),
          current_value: expect.any(Number),
          threshold_value: expect.any(Number),
          multiplier: expect.any(Number),
          message: expect.any(String),
          details: expect.objectContaining({ window_start: expect.any(String), window_end: expect.any(String) }),
          detected_at: expect.any(String),
        });
      }
    }
    const runaway = JSON.parse(receiver.on('/anomaly/runaway')[0].body) as GatewayEvent<'cost_anomaly.runaway_agent'>;
    expect(runaway.data).toMatchObject({ current_value: 60, threshold_value: 50, multiplier: 1.2, details: { agent: 'crawler', daily_budget: 10 } });

    // The fired windows live in Redis, shared by every dispatcher replica, for an hour from when
    // each fired: svc:dispatcher:anomaly:<org>:<rule>, with nothing of the clock's hour in the key,
    // so checks on both sides of a full hour (this test may run across one) see the same window.
    const redis = createRedis(REDIS_URL, 'queue', 'anomaly-e2e');
    try {
      const keys = await redis.keys('svc:dispatcher:anomaly:*');
      expect(keys.sort()).toEqual(anomalous.map((org) => `svc:dispatcher:anomaly:${org.orgId}:${org.expected}`).sort());
      for (const key of keys) {
        const ttl = await redis.pttl(key);
        expect(ttl).toBeGreaterThan(55 * 60_000);
        expect(ttl).toBeLessThanOrEqual(60 * 60_000);
      }
    } finally {
      await redis.quit();
    }
  }, 40_000);
});
