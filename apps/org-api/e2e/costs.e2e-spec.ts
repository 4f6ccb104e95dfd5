import { asOrgId, autoStopState, budgetPeriod } from '@svc/domain';
import { ChatNotificationJob, EventJob, QUEUES } from '@svc/events';
import { Json, OrgApi, Session, usageRecord } from './org-api.helpers';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('org API: cost metrics, named budgets, daily cost and agent health', () => {
  let api: OrgApi;
  let owner: Session;
  let other: Session;
  const now = Date.now();
  const events: EventJob[] = [];
  const chat: ChatNotificationJob[] = [];

  beforeAll(async () => {
    api = await OrgApi.boot();
    owner = await api.loginOwner();
    other = await api.otherOrganization();
    api.service.runtime.events.queue(QUEUES.events).process(async (job) => {
      events.push(job.data);
    });
    api.service.runtime.events.queue(QUEUES.chatNotification).process(async (job) => {
      chat.push(job.data);
    });
    const at = (ms: number) => new Date(now - ms);
    await api.repos.usage.recordBatch([
      usageRecord(owner.orgId, { provider: 'openai', agent: 'support-bot', cost: 0.3, latency_ms: 200, created_at: at(1_000) }),
      usageRecord(owner.orgId, { provider: 'openai', agent: 'support-bot', cost: 0.1, latency_ms: 400, created_at: at(2_000) }),
      usageRecord(owner.orgId, { provider: 'openai', agent: 'support-bot', cost: 0, latency_ms: 100, status_code: 502, created_at: at(3_000) }),
      usageRecord(owner.orgId, { provider: 'anthropic', agent: 'batch', cost: 0, latency_ms: 5, status_code: 403, blocked_by: 'pii_detected', created_at: at(4_000) }),
      usageRecord(owner.orgId, { provider: 'anthropic', agent: 'batch', cost: 0.6, latency_ms: 1000, created_at: at(3 * DAY) }),
      usageRecord(owner.orgId, { provider: 'openai', agent: null, cost: 0.2, latency_ms: 300, created_at: at(6 * DAY) }),
      usageRecord(owner.orgId, { provider: 'mistral', agent: 'batch', cost: 5, latency_ms: 50, created_at: at(10 * DAY) }),
      // Another organization's spend never shows up in the owner's figures.
      usageRecord(other.orgId, { provider: 'openai', agent: 'support-bot', cost: 99, latency_ms: 10, created_at: at(1_500) }),
    ]);
  });
  afterAll(() => api.stop());

  const metrics = (query = '', session = owner) => api.call('GET', `/api/v1/admin/metrics/cost-optimization${query}`, { token: session.token });
  const sum = (rows: Json[], field: string) => rows.reduce((total, row) => total + row[field], 0);

  it('computes the 7-day report by hand: totals, providers, agents, series and projections', async () => {
    const res = await metrics();
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ period: '7d', granularity: 'daily', total_cost: 1.2 });
    // Proxied requests only: the blocked anthropic request counts nowhere; the 502 counts as a request.
    expect(res.body.by_provider).toEqual({
      openai: { cost: 0.6, requests: 4, avg_cost_per_request: 0.15 },
      anthropic: { cost: 0.6, requests: 1, avg_cost_per_request: 0.6 },
    });
    expect(res.body.by_agent).toEqual({
      batch: { cost: 0.6, executions: 1, avg_latency_ms: 1000 },
      'support-bot': { cost: 0.4, executions: 3, avg_latency_ms: 233.33 },
      unattributed: { cost: 0.2, executions: 1, avg_latency_ms: 300 },
    });
    expect(res.body.time_series).toHaveLength(8);
    expect(sum(res.body.time_series, 'cost')).toBeCloseTo(1.2, 6);
    expect(sum(res.body.time_series, 'requests')).toBe(5);
    expect(res.body.time_series.at(-1)).toEqual({ date: new Date(now).toISOString().slice(0, 10), cost: expect.any(Number), requests: expect.any(Number) });
    // 1.2 USD over 7 days -> 1.2 / 7 * 30 a month; growth's monthly budget is 2000 USD.
    // First half (6 days ago) 0.2, second half 1.0: increasing.
    expect(res.body.projections).toEqual({ monthly_estimate: 5.142857, trend: 'increasing', budget_utilization: 0.26 });
  });

  it('honours period and granularity', async () => {
    const month = await metrics('?period=30d&granularity=weekly');
    expect(month.body.total_cost).toBe(6.2);
    expect(month.body.by_provider.mistral).toEqual({ cost: 5, requests: 1, avg_cost_per_request: 5 });
    expect(month.body.projections).toEqual({ monthly_estimate: 6.2, trend: 'increasing', budget_utilization: 0.31 });
    expect(sum(month.body.time_series, 'cost')).toBeCloseTo(6.2, 6);
    for (const point of month.body.time_series) expect(new Date(`${point.date}T00:00:00Z`).getUTCDay()).toBe(1);

    const day = await metrics('?period=24h&granularity=hourly');
    expect(day.body.total_cost).toBe(0.4);
    expect(day.body.time_series).toHaveLength(25);
    expect(day.body.time_series.at(-1).date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:00:00Z$/);
    expect(sum(day.body.time_series, 'requests')).toBe(3);
    expect(day.body.by_provider).toEqual({ openai: { cost: 0.4, requests: 3, avg_cost_per_request: 0.133333 } });

    for (const query of ['?period=1y', '?granularity=minute', '?period=7d&extra=1']) expect((await metrics(query)).status).toBe(400);
  });

  it("keeps organizations apart: the other organization sees only its own spend", async () => {
    const res = await metrics('', other);
    expect(res.body.total_cost).toBe(99);
    expect(Object.keys(res.body.by_agent)).toEqual(['support-bot']);
  });

  it('reports every agent name as given, `__proto__` included, and merges named `unattributed` with records without an agent', async () => {
    const org = await api.otherOrganization('Agent Names Org');
    const at = new Date(now - 60_000);
    await api.repos.usage.recordBatch([
      usageRecord(org.orgId, { agent: '__proto__', cost: 0.5, latency_ms: 100, created_at: at }),
      usageRecord(org.orgId, { agent: 'unattributed', cost: 0.25, latency_ms: 200, created_at: at }),
      usageRecord(org.orgId, { agent: null, cost: 0.125, latency_ms: 400, created_at: at }),
    ]);
    const res = await metrics('', org);
    expect(res.status).toBe(200);
    expect(res.body.total_cost).toBe(0.875);
    expect(res.body.by_agent).toEqual({
      ['__proto__']: { cost: 0.5, executions: 1, avg_latency_ms: 100 },
      unattributed: { cost: 0.375, executions: 2, avg_latency_ms: 300 },
    });
    expect(Object.keys(res.body.by_agent)).toEqual(['__proto__', 'unattributed']);
  });

  it("reports today's spend on /api/v1/health with credentials, nothing without", async () => {
    const open = await api.call('GET', '/api/v1/health');
    expect(open.status).toBe(200);
    expect(open.body).toMatchObject({ status: 'ok', version: expect.any(String), uptime_seconds: expect.any(Number), daily_cost: null });
    const res = await api.call('GET', '/api/v1/health', { token: owner.token });
    expect(res.body.daily_cost).toEqual({ total: 0.4, budget_limit: 100, utilization: 0.4, top_agent: 'support-bot', top_agent_cost: 0.4 });
    await api.repos.policies.patch(asOrgId(owner.orgId), { daily_budget: 50 });
    const withPolicy = await api.call('GET', '/api/v1/health', { token: owner.token });
    expect(withPolicy.body.daily_cost).toMatchObject({ budget_limit: 50, utilization: 0.8 });
    await api.repos.policies.delete(asOrgId(owner.orgId));
    expect((await api.call('GET', '/api/v1/health', { token: 'garbage.token.here' })).status).toBe(401);
  });

  it('scores agent health from usage records', async () => {
    const res = await api.call('GET', '/api/v1/agents/health', { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 2, offset: 0, limit: 20 });
    const [bot, batch] = res.body.items;
    // 1 of 3 proxied requests failed: 100 x (1 - 1/3) = 66.7 -> 67, unhealthy; p50/p95 of 100, 200, 400 ms.
    expect(bot).toMatchObject({ agent_name: 'support-bot', requests: 3, executions: 3, errors: 1, error_rate: 0.3333, p50_latency_ms: 200, p95_latency_ms: 400, score: 67, status: 'unhealthy', total_cost: 0.4 });
    // Only a blocked request in the window: 100 - 20 (all blocked) = 80, degraded.
    expect(batch).toMatchObject({ agent_name: 'batch', requests: 1, executions: 0, blocked: 1, score: 80, status: 'degraded' });
    const one = await api.call('GET', '/api/v1/agents/support-bot/health', { token: owner.token });
    expect(one.body).toEqual(bot);
    const week = await api.call('GET', '/api/v1/agents/batch/health?window_hours=168', { token: owner.token });
    expect(week.body).toMatchObject({ requests: 2, executions: 1, p50_latency_ms: 1000 });
    expect((await api.call('GET', '/api/v1/agents/nobody/health', { token: owner.token })).status).toBe(404);
    expect((await api.call('GET', '/api/v1/agents/health?window_hours=500', { token: owner.token })).status).toBe(400);
    for (const query of ['window_hours=0x10', 'window_hours=1e1', 'window_hours=']) {
      const res = await api.call('GET', `/api/v1/agents/batch/health?${query}`, { token: owner.token });
      expect({ query, status: res.status, param: res.body.error?.details?.param }).toEqual({ query, status: 400, param: 'window_hours' });
    }
    const key = await api.createKey(owner, ['agents:read']);
    expect((await api.call('GET', '/api/v1/agents/health', { key: key.key })).status).toBe(200);
    expect((await api.call('GET', '/api/v1/agents/batch/health', { token: other.token })).status).toBe(404);
  });

  describe('named budgets', () => {
    let spender: Session;
    beforeAll(async () => {
      spender = await api.otherOrganization('Spender');
      await api.repos.usage.recordBatch([usageRecord(spender.orgId, { cost: 3, created_at: new Date(now - 500) })]);
    });
    const budgets = (method: string, path = '', body?: Json, session = spender) =>
      api.call(method, `/api/v1/admin/costs/budgets${path}`, { token: session.token, body });

    it('creates a budget (200) with its current spend, and validates every field', async () => {
      const res = await budgets('POST', '', { name: 'Team budget', limit: 10 });
      expect(res.status).toBe(200);
      const period = budgetPeriod('monthly', new Date());
      expect(res.body).toMatchObject({
        id: expect.stringMatching(/^budget_/),
        name: 'Team budget',
        type: 'monthly',
        limit: 10,
        current: 3,
        utilization: 30,
        alerts: [],
        auto_stop: false,
        period_start: period.start.toISOString(),
        period_end: period.end.toISOString(),
      });
      const invalid: Json[] = [
        { limit: 10 },
        { name: '', limit: 10 },
        { name: 'x'.repeat(121), limit: 10 },
        { name: 'n' },
        { name: 'n', limit: 0 },
        { name: 'n', limit: -5 },
        { name: 'n', limit: 10, type: 'yearly' },
        { name: 'n', limit: 10, alerts: [{ threshold: 101, channels: ['email'] }] },
        { name: 'n', limit: 10, alerts: [{ threshold: -1, channels: ['email'] }] },
        { name: 'n', limit: 10, alerts: [{ threshold: 50, channels: ['sms'] }] },
        { name: 'n', limit: 10, auto_stop: true },
        { name: 'n', limit: 10, type: 'weekly', auto_stop: true },
      ];
      for (const body of invalid) {
        const bad = await budgets('POST', '', body);
        expect({ body, status: bad.status, code: bad.body.error?.code }).toEqual({ body, status: 400, code: 'VALIDATION_ERROR' });
      }
      expect((await budgets('POST', '', { name: 'n', limit: 10, type: 'weekly', auto_stop: true })).body.error.details.param).toBe('auto_stop');
    });

    it('triggers alerts when spend crosses them, notifies their channels, and resets them when it falls back', async () => {
      const created = await budgets('POST', '', {
        name: 'Daily cap',
        type: 'daily',
        limit: 10,
        auto_stop: true,
        alerts: [
          { threshold: 20, channels: ['webhook'] },
          { threshold: 50, channels: ['slack', 'email'] },
        ],
      });
      expect(created.body.current).toBe(3);
      expect(created.body.alerts).toEqual([
        { threshold: 20, channels: ['webhook'], triggered: true, triggered_at: expect.any(String) },
        { threshold: 50, channels: ['slack', 'email'], triggered: false, triggered_at: null },
      ]);
      const stored = await api.repos.namedBudgets.findById(asOrgId(spender.orgId), created.body.id);
      expect(stored?.alerts[0]).toMatchObject({ triggered: true });
      await waitFor(() => events.some((e) => e.event.orgid === spender.orgId));
      expect(events.find((e) => e.event.orgid === spender.orgId)?.event).toMatchObject({
        type: 'budget.warning',
        data: { budget_type: 'daily', threshold_pct: 20, spent: 3, budget: 10, utilization_pct: 30 },
      });
      expect(await autoStopState(api.repos, asOrgId(spender.orgId))).toMatchObject({ stopped: false, spent: 3 });

      await api.repos.usage.recordBatch([usageRecord(spender.orgId, { cost: 8, created_at: new Date() })]);
      const crossed = await budgets('GET', `/${created.body.id}`);
      expect(crossed.body).toMatchObject({ current: 11, utilization: 110 });
      expect(crossed.body.alerts.map((a: Json) => a.triggered)).toEqual([true, true]);
      await waitFor(() => chat.some((c) => c.event.orgid === spender.orgId));
      expect(chat.find((c) => c.event.orgid === spender.orgId)?.event.data).toMatchObject({ threshold_pct: 50 });
      expect(await autoStopState(api.repos, asOrgId(spender.orgId))).toMatchObject({ stopped: true, budget: { id: created.body.id, limit: 10 } });

      const raised = await budgets('PUT', `/${created.body.id}`, { limit: 100 });
      expect(raised.status).toBe(200);
      expect(raised.body).toMatchObject({ name: 'Daily cap', type: 'daily', limit: 100, auto_stop: true, current: 11, utilization: 11 });
      expect(raised.body.alerts).toEqual([
        { threshold: 20, channels: ['webhook'], triggered: false, triggered_at: null },
        { threshold: 50, channels: ['slack', 'email'], triggered: false, triggered_at: null },
      ]);
      const persisted = await api.repos.namedBudgets.findById(asOrgId(spender.orgId), created.body.id);
      expect(persisted?.alerts.map((a) => a.triggered)).toEqual([false, false]);
      expect(await autoStopState(api.repos, asOrgId(spender.orgId))).toMatchObject({ stopped: false });
    });

    it('updates only the fields sent, refuses auto_stop on non-daily budgets, deletes with 204', async () => {
      const created = (await budgets('POST', '', { name: 'Weekly', type: 'weekly', limit: 40, alerts: [{ threshold: 90, channels: ['email'] }] })).body;
      const renamed = await budgets('PUT', `/${created.id}`, { name: 'Weekly (eng)' });
      expect(renamed.body).toMatchObject({ name: 'Weekly (eng)', type: 'weekly', limit: 40, alerts: [{ threshold: 90, channels: ['email'], triggered: false }] });
      expect((await budgets('PUT', `/${created.id}`, { auto_stop: true })).status).toBe(400);
      const daily = await budgets('PUT', `/${created.id}`, { type: 'daily', auto_stop: true });
      expect(daily.body).toMatchObject({ type: 'daily', auto_stop: true });
      expect((await budgets('PUT', `/${created.id}`, { limit: 0 })).status).toBe(400);
      expect((await budgets('DELETE', `/${created.id}`)).status).toBe(204);
      expect((await budgets('GET', `/${created.id}`)).status).toBe(404);
      expect((await budgets('DELETE', `/${created.id}`)).status).toBe(404);
    });

    it('refuses null for any field of a PUT (400 naming it) and changes nothing', async () => {
      const created = (await budgets('POST', '', { name: 'Null guard', type: 'daily', limit: 20, auto_stop: true, alerts: [{ threshold: 90, channels: ['email'] }] })).body;
      const before = await api.repos.namedBudgets.findById(asOrgId(spender.orgId), created.id);
      for (const field of ['limit', 'type', 'auto_stop', 'name', 'alerts']) {
        const res = await budgets('PUT', `/${created.id}`, { [field]: null });
        expect({ field, status: res.status, code: res.body.error?.code, param: res.body.error?.details?.param }).toEqual({
          field,
          status: 400,
          code: 'VALIDATION_ERROR',
          param: field,
        });
        expect(res.body.error.message).toBe(`${field} must not be null (omit it to leave it unchanged)`);
      }
      expect(await api.repos.namedBudgets.findById(asOrgId(spender.orgId), created.id)).toEqual(before);
      expect((await budgets('GET', `/${created.id}`)).body).toMatchObject({ name: 'Null guard', type: 'daily', limit: 20, auto_stop: true });
    });

    it('refuses alerts without channels or with a repeated threshold, and null on POST as on PUT (400 naming the field)', async () => {
      const created = (await budgets('POST', '', { name: 'Alert rules', limit: 50, alerts: [{ threshold: 80, channels: ['email'] }] })).body;
      const total = (await budgets('GET', '')).body.total;
      const cases: [string, Json, string, string][] = [
        ['POST', { name: 'n', limit: 10, alerts: [{ threshold: 50, channels: [] }] }, 'alerts.0.channels', 'at least one channel'],
        ['POST', { name: 'n', limit: 10, alerts: [{ threshold: 50, channels: ['email'] }, { threshold: 50, channels: ['webhook'] }] }, 'alerts', 'threshold'],
        ['POST', { name: 'n', limit: 10, type: null }, 'type', 'type must not be null (omit it for the default)'],
        ['POST', { name: 'n', limit: 10, alerts: null }, 'alerts', 'alerts must not be null (omit it for the default)'],
        ['POST', { name: 'n', limit: 10, auto_stop: null }, 'auto_stop', 'auto_stop must not be null (omit it for the default)'],
        ['PUT', { alerts: [{ threshold: 90, channels: ['email'] }, { threshold: 20, channels: [] }] }, 'alerts.1.channels', 'at least one channel'],
        ['PUT', { alerts: [{ threshold: 90, channels: ['email'] }, { threshold: 90, channels: ['slack'] }] }, 'alerts', 'threshold'],
      ];
      for (const [method, body, param, message] of cases) {
        const res = await budgets(method, method === 'PUT' ? `/${created.id}` : '', body);
        expect({ method, body, status: res.status, code: res.body.error?.code, param: res.body.error?.details?.param }).toEqual({
          method,
          body,
          status: 400,
          code: 'VALIDATION_ERROR',
          param,
        });
        expect(res.body.error.message).toContain(message);
      }
      expect((await budgets('GET', '')).body.total).toBe(total);
      expect((await budgets('GET', `/${created.id}`)).body.alerts).toEqual([{ threshold: 80, channels: ['email'], triggered: false, triggered_at: null }]);
      // The control: distinct thresholds, each with a channel.
      const ok = await budgets('PUT', `/${created.id}`, { alerts: [{ threshold: 50, channels: ['email'] }, { threshold: 90, channels: ['email', 'slack'] }] });
      expect(ok.status).toBe(200);
      expect(ok.body.alerts.map((a: Json) => a.threshold)).toEqual([50, 90]);
    });

    it('a PUT that keeps a crossed threshold does not notify it again', async () => {
      const created = (await budgets('POST', '', { name: 'Keep state', limit: 4, alerts: [{ threshold: 50, channels: ['webhook'] }] })).body;
      expect(created.alerts[0].triggered).toBe(true);
      const mine = () => events.filter((e) => e.event.orgid === spender.orgId && (e.event.data as Json).budget === 4);
      await waitFor(() => mine().length === 1);
      const put = await budgets('PUT', `/${created.id}`, { alerts: [{ threshold: 50, channels: ['webhook', 'email'] }] });
      expect(put.body.alerts).toEqual([{ threshold: 50, channels: ['webhook', 'email'], triggered: true, triggered_at: created.alerts[0].triggered_at }]);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(mine()).toHaveLength(1);
    });

    it('pages with page and page_size', async () => {
      for (let i = 0; i < 3; i += 1) await budgets('POST', '', { name: `b${i}`, limit: 1 + i });
      const all = await budgets('GET', '');
      const total = all.body.total;
      expect(all.body).toMatchObject({ page: 1, page_size: 25, total_count: total, has_more: false });
      const first = await budgets('GET', '?page=1&page_size=2');
      expect(first.body).toMatchObject({ page: 1, page_size: 2, total, total_count: total, has_more: true });
      expect(first.body.budgets).toHaveLength(2);
      const last = await budgets('GET', `?page=${Math.ceil(total / 2)}&page_size=2`);
      expect(last.body.has_more).toBe(false);
      for (const query of ['?page=0', '?page_size=201', '?page_size=0']) expect((await budgets('GET', query)).status).toBe(400);
      // Decimal digits only, and an empty value is refused like any other bad value.
      for (const [query, param] of [
        ['?page_size=0x10', 'page_size'],
        ['?page_size=1e1', 'page_size'],
        ['?page=0b11', 'page'],
        ['?page=2.0', 'page'],
        ['?page=', 'page'],
        ['?page_size=', 'page_size'],
        ['?page=99999999999999999999', 'page'],
      ]) {
        const res = await budgets('GET', query);
        expect({ query, status: res.status, param: res.body.error?.details?.param }).toEqual({ query, status: 400, param });
      }
      expect((await budgets('GET', '?page=01&page_size=02')).body).toMatchObject({ page: 1, page_size: 2 });
      expect((await budgets('GET', '?page=9007199254740991&page_size=200')).body).toMatchObject({ budgets: [], page: 9007199254740991, has_more: false });
    });

    it("roles and tenancy: Members read; other organizations' budgets answer 404", async () => {
      const created = (await budgets('POST', '', { name: 'Private', limit: 5 })).body;
      const member = await api.userWithRole(spender.orgId, 'Member');
      expect((await budgets('GET', '', undefined, member)).status).toBe(200);
      expect((await budgets('POST', '', { name: 'x', limit: 1 }, member)).status).toBe(403);
      for (const [method, body] of [['GET', undefined], ['PUT', { limit: 9 }], ['DELETE', undefined]] as const) {
        const res = await budgets(method, `/${created.id}`, body, owner);
        expect({ method, status: res.status }).toEqual({ method, status: 404 });
      }
      expect((await budgets('GET', `/${created.id}`)).body.limit).toBe(5);
    });
  });
});

async function waitFor(check: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
