import { parse } from 'csv-parse/sync';
import { UsageRecordEntity } from '@svc/domain';
import { AdminHarness, gatewayError, Json, startAdmin } from './admin-harness';

const micros = (usd: number) => Math.round(usd * 1_000_000);
const sumUsd = (values: number[]) => values.reduce((s, v) => s + micros(v), 0) / 1_000_000;

describe('gateway admin: billing', () => {
  let h: AdminHarness;
  let month: string;
  let previousMonth: string;
  let records: UsageRecordEntity[];
  let keyA: string;
  let keyB: string;

  beforeAll(async () => {
    h = await startAdmin();
    const now = new Date();
    const monthStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
    const inMonth = (offset: number) => new Date(Math.max(monthStart + 1000 + offset, now.getTime() - 3_600_000 + offset));
    month = now.toISOString().slice(0, 7);
    previousMonth = new Date(monthStart - 1).toISOString().slice(0, 7);
    keyA = (await h.newKey(h.org.id, ['gateway:write'], { name: 'backend' })).key._id;
    keyB = (await h.newKey(h.org.id, ['gateway:write'], { name: 'batch jobs' })).key._id;
    records = await h.seedUsage(h.org.id, [
      { created_at: inMonth(1), key_id: keyA, agent: 'search', provider: 'openai', model: 'gpt-4o', cost: 0.1, input_tokens: 10, output_tokens: 5 },
      { created_at: inMonth(2), key_id: keyA, agent: 'search', provider: 'openai', model: 'gpt-4o', cost: 0.2, input_tokens: 20, output_tokens: 5 },
      { created_at: inMonth(3), key_id: keyA, agent: 'chat, "beta"', provider: 'openai', model: 'gpt-4o-mini', cost: 0.000123, input_tokens: 3, output_tokens: 1 },
      { created_at: inMonth(4), key_id: keyB, agent: null, provider: 'anthropic', model: 'claude-sonnet-4-5', cost: 1.234567, input_tokens: 300, output_tokens: 70 },
      { created_at: inMonth(5), key_id: keyB, agent: null, provider: 'anthropic', model: 'claude-sonnet-4-5', cost: 0, blocked_by: 'daily_budget', status_code: 403, input_tokens: 0, output_tokens: 0 },
      { created_at: inMonth(6), key_id: null, agent: 'search', provider: 'groq', model: 'groq/llama-3.3-70b', cost: 0.3 },
    ]);
    await h.seedUsage(h.org.id, [{ created_at: new Date(monthStart - 3_600_000), cost: 42, key_id: keyA }]);
    await h.seedUsage(h.other.id, [{ created_at: inMonth(1), cost: 99 }]);
  });
  afterAll(() => h.stop());

  it('sums the month by provider, model, key and agent, matching the usage records to the micro-dollar', async () => {
    const res = await h.call('GET', '/gateway/admin/billing/summary');
    expect(res.status).toBe(200);
    const total = sumUsd(records.map((r) => r.cost));
    expect(res.body).toMatchObject({ month, currency: 'USD', total_cost: total, cost: total, requests: 6, blocked: 1 });
    expect(Math.round(res.body.total_cost * 100)).toBe(Math.round(records.reduce((s, r) => s + r.cost, 0) * 100));
    for (const group of ['by_provider', 'by_model', 'by_key', 'by_agent']) {
      expect({ group, total: sumUsd(res.body[group].map((g: Json) => g.cost)) }).toEqual({ group, total });
      expect(res.body[group].reduce((s: number, g: Json) => s + g.requests, 0)).toBe(6);
    }
    expect(res.body.by_provider.map((p: Json) => [p.provider, p.cost, p.requests])).toEqual([
      ['anthropic', 1.234567, 2],
      ['openai', 0.300123, 3],
      ['groq', 0.3, 1],
    ]);
    expect(res.body.by_key).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ key_id: keyB, key_name: 'batch jobs', cost: 1.234567, blocked: 1 }),
        expect.objectContaining({ key_id: keyA, key_name: 'backend', cost: 0.300123, input_tokens: 33 }),
        expect.objectContaining({ key_id: null, key_name: null, cost: 0.3 }),
      ]),
    );
    expect(res.body.by_agent.find((a: Json) => a.agent === 'search')).toMatchObject({ cost: 0.6, requests: 3 });
    expect(res.body.by_model.find((m: Json) => m.model === 'gpt-4o')).toMatchObject({ provider: 'openai', cost: 0.3, requests: 2 });
  });

  it('takes a month, and refuses a malformed one', async () => {
    const previous = await h.call('GET', `/gateway/admin/billing/summary?month=${previousMonth}`);
    expect(previous.body).toMatchObject({ month: previousMonth, total_cost: 42, requests: 1 });
    expect((await h.call('GET', '/gateway/admin/billing/summary?month=2001-01')).body).toMatchObject({ total_cost: 0, requests: 0, by_provider: [] });
    for (const bad of ['2025-13', '2025-1', 'january', '2025-01-01']) {
      expect(gatewayError(await h.call('GET', `/gateway/admin/billing/summary?month=${bad}`), 400).param).toBe('month');
    }
  });

  it('exports the month as JSON and as CSV; the CSV parsed back equals the JSON lines', async () => {
    const json = await h.call('GET', '/gateway/admin/billing/export');
    expect(json.status).toBe(200);
    expect(json.body).toMatchObject({ month, currency: 'USD', total_cost: sumUsd(records.map((r) => r.cost)) });
    expect(json.body.lines).toHaveLength(4);
    expect(sumUsd(json.body.lines.map((l: Json) => l.cost))).toBe(json.body.total_cost);

    const csv = await fetch(`${h.url}/gateway/admin/billing/export?format=csv&month=${month}`, { headers: { 'x-svc-api-key': h.org.admin } });
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(csv.headers.get('content-disposition')).toBe(`attachment; filename="billing-${h.org.id}-${month}.csv"`);
    const rows: Record<string, string>[] = parse(await csv.text(), { columns: true });
    expect(rows).toEqual(json.body.lines.map((line: Json) => Object.fromEntries(Object.entries(line).map(([k, v]) => [k, v === null ? '' : String(v)]))));
    expect(rows.find((r) => r.agent === 'chat, "beta"')).toMatchObject({ key_name: 'backend', cost: '0.000123' });

    expect(gatewayError(await h.call('GET', '/gateway/admin/billing/export?format=xml'), 400).param).toBe('format');
    expect(gatewayError(await h.call('GET', '/gateway/admin/billing/export?month=13-2025'), 400).param).toBe('month');
  });

  it('needs billing:read; keeps organizations apart', async () => {
    const reader = (await h.newKey(h.org.id, ['admin:read'])).plaintext;
    const billing = (await h.newKey(h.org.id, ['billing:read'])).plaintext;
    for (const path of ['/gateway/admin/billing/summary', '/gateway/admin/billing/export']) {
      gatewayError(await h.call('GET', path, { key: reader }), 403, 'insufficient_scope');
      expect((await h.call('GET', path, { key: billing })).status).toBe(200);
      expect((await h.call('GET', path, { token: h.token(h.org.id, 'Member') })).status).toBe(200);
    }
    expect((await h.call('GET', '/gateway/admin/billing/summary', { key: h.other.admin })).body).toMatchObject({ total_cost: 99, requests: 1 });
  });
});
