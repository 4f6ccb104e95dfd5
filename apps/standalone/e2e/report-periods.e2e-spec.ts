import { UsageRecordEntity } from '@svc/domain';
import { anomalyScenarios, bootService, TestService } from '@svc/testing';
import { SERVICE } from '../src/app.module';
import { csvObjects, Json, micros, newOrganization, reportClient } from './report-figures.helpers';

const DAY = 86_400_000;
const startOfDay = (t: number) => Math.floor(t / DAY) * DAY;
const startOfMonth = (t: number) => Date.UTC(new Date(t).getUTCFullYear(), new Date(t).getUTCMonth(), 1);
const startOfWeek = (t: number) => startOfDay(t) - ((new Date(t).getUTCDay() + 6) % 7) * DAY;
const month = (t: number) => new Date(t).toISOString().slice(0, 7);

/**
 * The windows of the reports, from usage records written through the repository (as the gateway
 * writes them): UTC day, ISO week and month edges to the millisecond (23:59:59.999 and 00:00:00.000),
 * rolling `days` windows, amounts that add up with float noise (0.1 + 0.2), amounts below a
 * micro-dollar, empty windows, and latency percentiles of known values.
 */
describe('report periods: UTC edges, rolling windows, rounding and empty windows', () => {
  let service: TestService;
  let now = Date.now();

  beforeAll(async () => {
    // The expected windows are fixed from `now`: a file started within a minute of UTC midnight
    // waits for the new day, so no report is asked across the edge it checks.
    const toMidnight = DAY - (Date.now() % DAY);
    if (toMidnight < 60_000) await new Promise((resolve) => setTimeout(resolve, toMidnight + 100));
    now = Date.now();
    service = await bootService(SERVICE, { REDIS_URL: process.env.TEST_REDIS_URL as string });
  }, 120_000);
  afterAll(() => service?.stop());

  /** A new organization with the given records; its report client. */
  async function seeded(records: (orgId: string) => UsageRecordEntity[]) {
    const org = await newOrganization(service.runtime.repositories, 'periods');
    const { key } = await org.newKey('finance');
    await service.runtime.repositories.usage.recordBatch(records(org.orgId));
    return reportClient(service, key);
  }
  const record = (orgId: string, at: number, fields: Partial<UsageRecordEntity> = {}) => anomalyScenarios.usageRecord(orgId, at, fields);

  it('a UTC day ends at 23:59:59.999: /usage/daily, the daily budget and the cost metrics series split there, and 0.1 + 0.2 reads 0.3', async () => {
    const today = startOfDay(now);
    const reports = await seeded((orgId) => [record(orgId, today - 1, { cost: 0.1 }), record(orgId, today, { cost: 0.2 }), record(orgId, now, { cost: 0.1 }), record(orgId, now, { cost: 0.2 })]);
    const one = await reports.admin('/usage/daily?days=1');
    expect(one.items).toEqual([{ date: new Date(today).toISOString().slice(0, 10), requests: 3, blocked: 0, cost: 0.5, estimated_cost: 0.5, input_tokens: 300, output_tokens: 150 }]);
    expect([one.total_cost, one.total_requests, one.from]).toEqual([0.5, 3, new Date(today).toISOString()]);
    const two = await reports.admin('/usage/daily?days=2');
    expect((two.items as Json[]).map((item) => [item.date, item.requests, item.cost])).toEqual([
      [new Date(today - DAY).toISOString().slice(0, 10), 1, 0.1],
      [new Date(today).toISOString().slice(0, 10), 3, 0.5],
    ]);
    expect(two.total_cost).toBe(0.6);

    const daily = await reports.orgSend('POST', '/admin/costs/budgets', { name: 'today', type: 'daily', limit: 1 });
    expect(daily.body).toMatchObject({ current: 0.5, utilization: 50, period_start: new Date(today).toISOString(), period_end: new Date(today + DAY).toISOString() });

    const metrics = await reports.org('/admin/metrics/cost-optimization?period=24h&granularity=daily');
    expect(metrics.total_cost).toBe(0.6);
    expect((metrics.time_series as Json[]).map((point) => [point.date, point.cost, point.requests])).toEqual([
      [new Date(today - DAY).toISOString().slice(0, 10), 0.1, 1],
      [new Date(today).toISOString().slice(0, 10), 0.5, 3],
    ]);
    expect(metrics.by_provider).toEqual({ openai: { cost: 0.6, requests: 4, avg_cost_per_request: 0.15 } });
  });

  it('a UTC month ends at its last millisecond: billing by month, the monthly budget', async () => {
    const first = startOfMonth(now);
    const reports = await seeded((orgId) => [record(orgId, first - 1, { cost: 0.7, model: 'gpt-4o' }), record(orgId, first, { cost: 0.1 }), record(orgId, first, { cost: 0.2 })]);
    const previous = await reports.admin(`/billing/summary?month=${month(first - 1)}`);
    expect(previous).toMatchObject({ month: month(first - 1), requests: 1, total_cost: 0.7, cost: 0.7, to: new Date(first).toISOString() });
    const current = await reports.admin('/billing/summary');
    expect(current).toMatchObject({ month: month(first), requests: 2, total_cost: 0.3, from: new Date(first).toISOString() });
    expect(current.by_model).toEqual([{ provider: 'openai', model: 'gpt-4o-mini', requests: 2, blocked: 0, input_tokens: 200, output_tokens: 100, cost: 0.3 }]);
    const exported = await reports.admin(`/billing/export?month=${month(first - 1)}`);
    expect(exported).toMatchObject({ month: month(first - 1), total_cost: 0.7 });
    expect((exported.lines as Json[]).map((line) => [line.model, line.cost])).toEqual([['gpt-4o', 0.7]]);
    const monthly = await reports.orgSend('POST', '/admin/costs/budgets', { name: 'month', type: 'monthly', limit: 10 });
    expect(monthly.body).toMatchObject({ current: 0.3, utilization: 3, period_start: new Date(first).toISOString() });
  });

  it('an ISO week starts on Monday 00:00:00.000 UTC: the weekly budget', async () => {
    const monday = startOfWeek(now);
    const reports = await seeded((orgId) => [record(orgId, monday - 1, { cost: 0.4 }), record(orgId, monday, { cost: 0.25 })]);
    const weekly = await reports.orgSend('POST', '/admin/costs/budgets', { name: 'week', type: 'weekly', limit: 1 });
    expect(weekly.body).toMatchObject({ current: 0.25, utilization: 25, period_start: new Date(monday).toISOString(), period_end: new Date(monday + 7 * DAY).toISOString() });
  });

  it('`days` on /usage, /usage/export and /latency is the last days × 24 hours', async () => {
    const reports = await seeded((orgId) => [
      record(orgId, now - DAY - 60_000, { cost: 1, latency_ms: 900 }),
      record(orgId, now - DAY + 60_000, { cost: 0.5, latency_ms: 300 }),
      record(orgId, now - 1000, { cost: 0.25, latency_ms: 100 }),
    ]);
    const listed = await reports.admin('/usage?days=1');
    expect((listed.items as Json[]).map((item) => item.cost)).toEqual([0.25, 0.5]);
    expect(listed.total).toBe(2);
    expect((await reports.admin('/usage?days=2')).total).toBe(3);
    expect(csvObjects(await reports.adminText('/usage/export?days=1')).map((row) => row.cost)).toEqual(['0.25', '0.5']);
    const latency = await reports.admin('/latency?days=1');
    expect(latency.overall).toEqual({ count: 2, p50_ms: 100, p95_ms: 300, p99_ms: 300, avg_ms: 200, max_ms: 300 });
  });

  it('latency percentiles of 1..100 ms: nearest rank', async () => {
    const reports = await seeded((orgId) => Array.from({ length: 100 }, (_, i) => record(orgId, now - (i + 1) * 1000, { latency_ms: 100 - i, model: i % 2 ? 'gpt-4o' : 'gpt-4o-mini' })));
    const latency = await reports.admin('/latency?days=1');
    expect(latency.overall).toEqual({ count: 100, p50_ms: 50, p95_ms: 95, p99_ms: 99, avg_ms: 50.5, max_ms: 100 });
    // gpt-4o: the odd values 1..99; gpt-4o-mini: the even ones 2..100 (ranks 25, 48 and 50 of 50).
    expect(Object.fromEntries((latency.by_model as Json[]).map(({ provider, model, ...figures }) => [`${provider}/${model}`, figures]))).toEqual({
      'openai/gpt-4o': { count: 50, p50_ms: 49, p95_ms: 95, p99_ms: 99, avg_ms: 50, max_ms: 99 },
      'openai/gpt-4o-mini': { count: 50, p50_ms: 50, p95_ms: 96, p99_ms: 100, avg_ms: 51, max_ms: 100 },
    });
  });

  it('amounts below a micro-dollar: billing totals are the records summed, each grouping within a micro-dollar and adding up', async () => {
    // Ten agents, each one request of $0.0000004 ($0.000004 in all), and one model at $0.0000016 over four agents.
    const reports = await seeded((orgId) => [
      ...Array.from({ length: 10 }, (_, i) => record(orgId, now - 1000, { cost: 0.0000004, agent: `agent-${i}` })),
      ...Array.from({ length: 4 }, (_, i) => record(orgId, now - 1000, { cost: 0.0000004, agent: `agent-${i}`, model: 'gpt-4o' })),
    ]);
    const daily = await reports.admin('/usage/daily?days=1');
    expect(daily.total_cost).toBe(0.0000056);
    const summary = await reports.admin('/billing/summary');
    expect(summary.total_cost).toBe(0.000006);
    expect(summary.cost).toBe(0.000006);
    const models = Object.fromEntries((summary.by_model as Json[]).map((row) => [row.model, micros(row.cost)]));
    expect(Math.abs(models['gpt-4o'] - 1.6)).toBeLessThan(1);
    expect(Math.abs(models['gpt-4o-mini'] - 4)).toBeLessThan(1);
    for (const field of ['by_provider', 'by_model', 'by_key', 'by_agent']) {
      const rows = summary[field] as Json[];
      expect({ field, sum: rows.reduce((sum, row) => sum + micros(row.cost), 0) }).toEqual({ field, sum: 6 });
    }
    const exported = await reports.admin('/billing/export');
    expect(exported.total_cost).toBe(0.000006);
    expect((exported.lines as Json[]).reduce((sum, line) => sum + micros(line.cost), 0)).toBe(6);
    const metrics = await reports.org('/admin/metrics/cost-optimization?period=24h');
    expect(metrics.total_cost).toBe(0.000006);
    // The usage export writes each record's amounts in plain decimals, as the JSON answers hold them (not `4e-7`).
    const rows = csvObjects(await reports.adminText('/usage/export?days=1'));
    expect(new Set(rows.map((row) => [row.cost, row.estimated_cost].join(' ')))).toEqual(new Set(['0.0000004 0.0000004']));
  });

  it('an empty window answers zeros and empty lists, never null or an error', async () => {
    const reports = await seeded(() => []);
    expect(await reports.admin('/usage?days=1')).toMatchObject({ items: [], total: 0, next_cursor: null });
    const daily = await reports.admin('/usage/daily?days=3');
    expect(daily).toMatchObject({ total_cost: 0, total_requests: 0 });
    expect((daily.items as Json[]).map(({ date, ...figures }) => [typeof date, figures])).toEqual(
      Array.from({ length: 3 }, () => ['string', { requests: 0, blocked: 0, cost: 0, estimated_cost: 0, input_tokens: 0, output_tokens: 0 }]),
    );
    expect(csvObjects(await reports.adminText('/usage/export'))).toEqual([]);
    expect(await reports.admin('/billing/summary?month=2020-02')).toEqual({
      month: '2020-02',
      from: '2020-02-01T00:00:00.000Z',
      to: '2020-03-01T00:00:00.000Z',
      currency: 'USD',
      total_cost: 0,
      cost: 0,
      requests: 0,
      blocked: 0,
      input_tokens: 0,
      output_tokens: 0,
      by_provider: [],
      by_model: [],
      by_key: [],
      by_agent: [],
    });
    expect(await reports.admin('/billing/export')).toMatchObject({ total_cost: 0, lines: [] });
    expect(csvObjects(await reports.adminText('/billing/export?format=csv'))).toEqual([]);
    expect(await reports.admin('/latency')).toMatchObject({ overall: { count: 0, p50_ms: 0, p95_ms: 0, p99_ms: 0, avg_ms: 0, max_ms: 0 }, by_provider: [], by_model: [] });
    const metrics = await reports.org('/admin/metrics/cost-optimization');
    expect(metrics).toMatchObject({ total_cost: 0, by_provider: {}, by_agent: {}, projections: { monthly_estimate: 0, trend: 'stable', budget_utilization: 0 } });
    expect((metrics.time_series as Json[]).every((point) => point.cost === 0 && point.requests === 0)).toBe(true);
    const budget = await reports.orgSend('POST', '/admin/costs/budgets', { name: 'empty', limit: 5 });
    expect(budget.body).toMatchObject({ current: 0, utilization: 0 });
  });

  it('billing months are four-digit years as written: 0050-03 is March of the year 50, not 1950', async () => {
    const reports = await seeded(() => []);
    const summary = await reports.admin('/billing/summary?month=0050-03');
    expect([summary.month, summary.from, summary.to]).toEqual(['0050-03', '0050-03-01T00:00:00.000Z', '0050-04-01T00:00:00.000Z']);
    const december = await reports.admin('/billing/export?month=0099-12');
    expect([december.month, december.to]).toEqual(['0099-12', '0100-01-01T00:00:00.000Z']);
  });
});
