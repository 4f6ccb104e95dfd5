import { randomBytes } from 'node:crypto';
import { asOrgId, UsageRecordEntity } from '@svc/domain';
import { GatewayEvent } from '@svc/events';
import { BudgetAlertWorker } from '@svc/org';
import type { TestService } from '@svc/testing';
import { bootDispatcher, cleanRedis, newOrg, Receiver, redisUrl, seedWebhook, sleep, verifyDelivery } from './dispatcher.helpers';

const REDIS_URL = redisUrl(9);
const SECRET = 'whsec_QnVkZ2V0QWxlcnRXb3JrZXJTZWNyZXRLZXlGb3JU';
const INTERVAL_MS = 200;

/** Issue 6: named-budget alerts go out as spend accrues, without anyone reading the budget. */
describe('named-budget alerts: the dispatcher evaluates them every BUDGET_ALERT_CHECK_INTERVAL_MS', () => {
  let service: TestService;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await Receiver.start();
    service = await bootDispatcher({ REDIS_URL, BUDGET_ALERT_CHECK_INTERVAL_MS: String(INTERVAL_MS) });
  });
  afterAll(async () => {
    await service?.stop();
    await receiver?.close();
    await cleanRedis(REDIS_URL);
  });

  it('delivers budget.warning once when spend passes a threshold, with no read of the budget', async () => {
    const orgId = await newOrg(service);
    const org = asOrgId(orgId);
    const repos = service.runtime.repositories;
    await seedWebhook(service, orgId, receiver.url('/budget'), ['budget.warning'], SECRET);
    const budget = await repos.namedBudgets.create(org, { name: 'Daily cap', type: 'daily', limit: 10, alerts: [{ threshold: 80, channels: ['webhook'] }] });
    await repos.usage.recordBatch([usage(orgId, 2)]);
    await sleep(INTERVAL_MS * 3);
    expect(receiver.on('/budget')).toHaveLength(0);

    const crossedAt = Date.now();
    await repos.usage.recordBatch([usage(orgId, 6.5)]);
    // Well inside the default 60 s interval, with room for a machine busy with other tests.
    const [delivery] = await receiver.waitFor('/budget', 1, 20_000);
    expect(Date.now() - crossedAt).toBeLessThan(20_000);
    expect(await verifyDelivery(delivery, SECRET)).toEqual({ hmac: true, standard: true });
    const event = JSON.parse(delivery.body) as GatewayEvent<'budget.warning'>;
    expect(event).toMatchObject({ type: 'budget.warning', orgid: orgId });
    // Which of the organization's named budgets crossed its threshold, not only its figures.
    expect(event.data).toEqual({
      budget_type: 'daily',
      threshold_pct: 80,
      spent: 8.5,
      budget: 10,
      utilization_pct: 85,
      timestamp: expect.any(String),
      budget_id: budget._id,
      budget_name: 'Daily cap',
    });
    expect((await repos.namedBudgets.findById(org, budget._id))?.alerts[0]).toMatchObject({ triggered: true, triggered_at: expect.any(Date) });

    // Further checks and further spend in the same period do not notify the same threshold again.
    await repos.usage.recordBatch([usage(orgId, 1)]);
    await sleep(INTERVAL_MS * 5);
    expect(receiver.on('/budget')).toHaveLength(1);
    expect(service.apps[0].get(BudgetAlertWorker).lastCheck).toMatchObject({ notified: 0 });
  }, 30_000);
});

function usage(orgId: string, cost: number): UsageRecordEntity {
  return {
    _id: `gw_${randomBytes(12).toString('hex')}`,
    org_id: orgId,
    key_id: null,
    team_id: null,
    provider: 'openai',
    model: 'gpt-4o-mini',
    endpoint: '/v1/chat/completions',
    stream: false,
    status_code: 200,
    blocked_by: null,
    input_tokens: 10,
    output_tokens: 10,
    estimated_cost: cost,
    cost,
    latency_ms: 100,
    upstream_latency_ms: 90,
    governance_ms: 1,
    agent: null,
    runner_id: null,
    session_id: null,
    created_at: new Date(),
    replay: { estimated_input_tokens: 10, max_output_tokens: 4096, body_bytes: 100, pii_findings: {}, safety_findings: {}, security_findings: {}, skills: [], reasoning_tokens: null },
  };
}
