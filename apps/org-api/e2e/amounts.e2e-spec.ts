import { EventJob, QUEUES } from '@svc/events';
import { Json, OrgApi, Session, usageRecord } from './org-api.helpers';

/** 968 input tokens of gpt-4o-mini at $0.15 per million, as the proxy computes it: the audit's noisy float. */
const NOISY = (968 * 0.15) / 1_000_000;

/**
 * USD amounts of the organization API, from usage records that keep the full float: shown without
 * float noise (10 decimals); the cost metrics keep their documented 6 decimals; sums stay exact.
 */
describe('org API: USD amounts as shown', () => {
  let api: OrgApi;
  const events: EventJob[] = [];

  beforeAll(async () => {
    api = await OrgApi.boot();
    api.service.runtime.events.queue(QUEUES.events).process(async (job) => {
      events.push(job.data);
    });
  });
  afterAll(() => api.stop());

  async function spender(name: string, records: Json[]): Promise<Session> {
    const session = await api.otherOrganization(name);
    await api.repos.usage.recordBatch(records.map((fields) => usageRecord(session.orgId, { agent: 'bot', created_at: new Date(Date.now() - 1_000), ...fields })));
    return session;
  }

  it('a noisy cost: daily cost, agent health, a named budget and its budget.warning show 0.0001452; cost metrics 6 decimals', async () => {
    expect(String(NOISY)).toBe('0.00014519999999999998');
    const org = await spender('Noisy', [{ cost: NOISY }]);

    const health = await api.call('GET', '/api/v1/health', { token: org.token });
    expect(health.body.daily_cost).toMatchObject({ total: 0.0001452, top_agent: 'bot', top_agent_cost: 0.0001452 });
    const agent = await api.call('GET', '/api/v1/agents/bot/health', { token: org.token });
    expect(agent.body.total_cost).toBe(0.0001452);

    const budget = await api.call('POST', '/api/v1/admin/costs/budgets', {
      token: org.token,
      body: { name: 'Tiny', type: 'daily', limit: 0.001, alerts: [{ threshold: 10, channels: ['webhook'] }] },
    });
    expect(budget.body).toMatchObject({ current: 0.0001452, utilization: 14.52 });
    await waitFor(() => events.some((e) => e.event.orgid === org.orgId));
    expect(events.find((e) => e.event.orgid === org.orgId)?.event).toMatchObject({ type: 'budget.warning', data: { spent: 0.0001452, budget: 0.001, utilization_pct: 14.52 } });

    // docs/org-api.md: the cost metrics round money to 6 decimals.
    const metrics = await api.call('GET', '/api/v1/admin/metrics/cost-optimization?period=24h', { token: org.token });
    expect(metrics.body).toMatchObject({ total_cost: 0.000145, by_agent: { bot: { cost: 0.000145 } }, by_provider: { openai: { cost: 0.000145, avg_cost_per_request: 0.000145 } } });
  });

  it('sums are unchanged: 1,000 records of $0.0000123 total $0.0123 everywhere', async () => {
    let float = 0;
    for (let i = 0; i < 1000; i++) float += 0.0000123;
    expect(float).not.toBe(0.0123);
    const org = await spender('Many', Array.from({ length: 1000 }, () => ({ cost: 0.0000123 })));

    expect((await api.call('GET', '/api/v1/health', { token: org.token })).body.daily_cost).toMatchObject({ total: 0.0123, top_agent_cost: 0.0123 });
    expect((await api.call('GET', '/api/v1/agents/bot/health', { token: org.token })).body.total_cost).toBe(0.0123);
    const budget = await api.call('POST', '/api/v1/admin/costs/budgets', { token: org.token, body: { name: 'Sum', type: 'daily', limit: 1 } });
    expect(budget.body).toMatchObject({ current: 0.0123, utilization: 1.23 });
    expect((await api.call('GET', '/api/v1/admin/metrics/cost-optimization?period=24h', { token: org.token })).body.total_cost).toBe(0.0123);
  });
});

async function waitFor(check: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
