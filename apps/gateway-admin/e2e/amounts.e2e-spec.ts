import { parse } from 'csv-parse/sync';
import { UsageRecorder } from '@svc/proxy';
import { MockProvider, startMockProvider } from './mock-provider';
import { AdminHarness, GATEWAY_WITH_ADMIN, Json, Org, startAdmin } from './admin-harness';

/** 968 input tokens of gpt-4o-mini at $0.15 per million, as the proxy computes it: the audit's noisy float. */
const NOISY = (968 * 0.15) / 1_000_000;
const NOISY_SHOWN = 0.0001452;

/**
 * USD amounts of the proxy's headers, the admin's answers and the CSV export are shown without
 * float noise (10 decimals), from usage records that keep the full float, and sums stay exact.
 */
describe('gateway admin and proxy: USD amounts as shown', () => {
  let h: AdminHarness;
  let mock: MockProvider;

  beforeAll(async () => {
    mock = await startMockProvider({ port: 0 });
    h = await startAdmin({ definition: GATEWAY_WITH_ADMIN, env: { OPENAI_BASE_URL: `${mock.url}/v1`, OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' } });
  });
  afterAll(async () => {
    await h.stop();
    await mock.close();
  });

  async function chat(org: Org, maxTokens: number): Promise<{ status: number; headers: Headers; body: Json }> {
    const headers = { 'content-type': 'application/json', 'x-svc-api-key': org.admin, 'x-provider-key': 'sk-mock-provider-key' };
    const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }], max_tokens: maxTokens });
    const res = await fetch(`${h.url}/v1/chat/completions`, { method: 'POST', headers, body });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Json };
  }

  async function csvOf(org: Org): Promise<Json[]> {
    const res = await fetch(`${h.url}/gateway/admin/usage/export`, { headers: { 'x-svc-api-key': org.admin } });
    expect(res.status).toBe(200);
    return parse(await res.text(), { columns: true }) as Json[];
  }

  it('a proxied request: X-SVC-Cost, the usage record and its CSV row show the exact estimate and cost', async () => {
    const org = await h.newOrg();
    const served = await chat(org, 17);
    expect(served.status).toBe(200);
    const requestId = served.headers.get('x-svc-request-id') as string;
    await h.service.apps[0].get(UsageRecorder).flush();
    const record = await h.call('GET', `/gateway/admin/usage/${requestId}`, { key: org.admin });
    expect(record.status).toBe(200);

    // The mock reports 2 input tokens ("hello") and 5 output ("mock reply to: hello"): 0.3 + 3 micro-dollars.
    expect(record.body).toMatchObject({ input_tokens: 2, output_tokens: 5 });
    expect((2 * 0.15 + 5 * 0.6) / 1_000_000).not.toBe(0.0000033);
    expect(record.body.cost).toBe(0.0000033);
    expect(record.text).toContain('"cost":0.0000033,');
    // The estimate (counted input tokens + 17 output tokens), computed in hundred-millionths of a dollar.
    const inputTokens = record.body.replay.estimated_input_tokens as number;
    const estimate = (inputTokens * 15 + 17 * 60) / 1e8;
    expect(served.headers.get('x-svc-cost')).toBe(String(estimate));
    expect(record.body.estimated_cost).toBe(estimate);

    const [row] = await csvOf(org);
    expect(row).toMatchObject({ request_id: requestId, cost: '0.0000033', estimated_cost: String(estimate) });
  });

  it('stored noisy costs: /usage items, one record, the CSV cell, the daily breakdown and a budget node', async () => {
    const org = await h.newOrg();
    expect(String(NOISY)).toBe('0.00014519999999999998');
    const key = await h.newKey(org.id, ['gateway:write']);
    const [seeded] = await h.seedUsage(org.id, [{ cost: NOISY, estimated_cost: NOISY * 3, key_id: key.key._id, created_at: new Date() }]);

    const list = await h.call('GET', '/gateway/admin/usage', { key: org.admin });
    expect(list.body.items[0]).toMatchObject({ request_id: seeded._id, cost: NOISY_SHOWN, estimated_cost: 0.0004356 });
    expect(list.text).not.toMatch(/\d{11,}/);
    expect((await h.call('GET', `/gateway/admin/usage/${seeded._id}`, { key: org.admin })).body).toMatchObject({ cost: NOISY_SHOWN, estimated_cost: 0.0004356 });
    expect((await csvOf(org))[0]).toMatchObject({ cost: '0.0001452', estimated_cost: '0.0004356' });

    // Shown to 10 decimals, not 6 (0.000145): the day adds up to its records.
    const daily = (await h.call('GET', '/gateway/admin/usage/daily?days=1', { key: org.admin })).body;
    expect(daily).toMatchObject({ total_cost: NOISY_SHOWN, items: [{ cost: NOISY_SHOWN, estimated_cost: 0.0004356, requests: 1 }] });

    const node = await h.call('POST', '/gateway/admin/budgets/nodes', { key: org.admin, body: { name: 'key cap', level: 'key', key_id: key.key._id, budget_limit: 1, reset_period: 'daily' } });
    expect(node.status).toBe(201);
    expect(node.body).toMatchObject({ current_spend: NOISY_SHOWN, remaining: 0.9998548 });
  });

  it('sums are unchanged: 1,000 records of $0.0000123 total $0.0123 in the daily breakdown and the billing summary', async () => {
    const org = await h.newOrg();
    let float = 0;
    for (let i = 0; i < 1000; i++) float += 0.0000123;
    expect(float).not.toBe(0.0123);
    await h.seedUsage(org.id, Array.from({ length: 1000 }, () => ({ cost: 0.0000123, estimated_cost: 0.0000123, created_at: new Date() })));

    const daily = (await h.call('GET', '/gateway/admin/usage/daily?days=1', { key: org.admin })).body;
    expect(daily).toMatchObject({ total_cost: 0.0123, total_requests: 1000, items: [{ cost: 0.0123, estimated_cost: 0.0123 }] });
    const summary = (await h.call('GET', '/gateway/admin/billing/summary', { key: org.admin })).body;
    expect(summary).toMatchObject({ total_cost: 0.0123, requests: 1000 });
    expect((await h.call('GET', '/gateway/admin/usage?limit=1', { key: org.admin })).body.items[0].cost).toBe(0.0000123);
  });

  it('the HITL 202, its X-SVC-Cost and the approval show the same exact estimate', async () => {
    const org = await h.newOrg();
    expect((await h.call('POST', '/gateway/admin/policies', { key: org.admin, body: { hitl_cost_threshold: 0.000001 } })).status).toBeLessThan(300);
    const pending = await chat(org, 17);
    expect(pending.status).toBe(202);
    await h.service.apps[0].get(UsageRecorder).flush();
    const record = await h.call('GET', `/gateway/admin/usage/${pending.headers.get('x-svc-request-id')}`, { key: org.admin });
    const estimate = ((record.body.replay.estimated_input_tokens as number) * 15 + 17 * 60) / 1e8;
    expect(pending.headers.get('x-svc-cost')).toBe(String(estimate));
    expect(pending.body.estimated_cost).toBe(estimate);
    expect(record.body.estimated_cost).toBe(estimate);
    const approval = await h.call('GET', `/gateway/admin/approvals/${pending.body.approval_id}`, { key: org.admin });
    expect(approval.body.estimated_cost).toBe(estimate);
  });
});
