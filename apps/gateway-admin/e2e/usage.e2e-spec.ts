import { parse } from 'csv-parse/sync';
import { UsageRecordEntity } from '@svc/domain';
import { AdminHarness, gatewayError, Json, startAdmin } from './admin-harness';

const DAY = 86_400_000;
const ago = (ms: number) => new Date(Date.now() - ms);

describe('gateway admin: usage records', () => {
  let h: AdminHarness;
  let ours: UsageRecordEntity[];
  let billingKey: string;
  let readerKey: string;

  beforeAll(async () => {
    h = await startAdmin();
    billingKey = (await h.newKey(h.org.id, ['billing:read'])).plaintext;
    readerKey = (await h.newKey(h.org.id, ['admin:read'])).plaintext;
    ours = await h.seedUsage(h.org.id, [
      { created_at: ago(60_000), agent: 'Team "A", ops\nnight', cost: 0.1 },
      { created_at: ago(2 * 60_000), agent: '=HYPERLINK("x")', model: 'claude-sonnet-4-5', provider: 'anthropic', cost: 0.2 },
      { created_at: ago(3 * 60_000), blocked_by: 'rate_limit', status_code: 429, cost: 0, input_tokens: 0, output_tokens: 0 },
      { created_at: ago(2 * DAY), agent: null, cost: 0.3 },
      { created_at: ago(6 * DAY), cost: 0.05 },
      { created_at: ago(10 * DAY), cost: 9 },
      { created_at: ago(40 * DAY), cost: 7 },
    ]);
    await h.seedUsage(h.other.id, [{ created_at: ago(60_000), cost: 5 }]);
  });
  afterAll(() => h.stop());

  const list = (query = '', key?: string) => h.call('GET', `/gateway/admin/usage${query}`, { key });

  it('lists the last 7 days of the organization’s records, newest first', async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 5, limit: 100, offset: 0, days: 7, next_cursor: null });
    expect(res.body.items.map((r: Json) => r.request_id)).toEqual(ours.slice(0, 5).map((r) => r._id));
    expect(res.body.items[0]).toEqual({
      request_id: ours[0]._id,
      created_at: ours[0].created_at.toISOString(),
      org_id: h.org.id,
      key_id: null,
      team_id: null,
      agent: 'Team "A", ops\nnight',
      provider: 'openai',
      model: 'gpt-4o-mini',
      endpoint: 'chat',
      stream: false,
      status_code: 200,
      blocked_by: null,
      input_tokens: 100,
      output_tokens: 50,
      estimated_cost: 0.001,
      cost: 0.1,
      // Seeded without usage_source (as records written before it existed): tokens mean the provider's usage.
      usage_source: 'provider',
      latency_ms: 120,
      upstream_latency_ms: 100,
      governance_ms: 1.5,
      runner_id: null,
      session_id: null,
    });
    expect((await list('?days=30')).body.total).toBe(6);
    expect((await list('?days=90&limit=1000')).body.total).toBe(7);
  });

  it('pages by offset and by cursor without gaps or repeats', async () => {
    const first = await list('?limit=2');
    expect(first.body.items).toHaveLength(2);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const byOffset = await list('?limit=2&offset=2');
    expect(byOffset.body.items.map((r: Json) => r.request_id)).toEqual([ours[2]._id, ours[3]._id]);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Json = (await list(`?limit=2${cursor ? `&cursor=${cursor}` : ''}`)).body;
      seen.push(...page.items.map((r: Json) => r.request_id));
      expect(page.offset).toBe(cursor ? null : 0);
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual(ours.slice(0, 5).map((r) => r._id));
  });

  it.each([
    ['?days=0', 'days'],
    ['?days=91', 'days'],
    ['?days=seven', 'days'],
    ['?limit=0', 'limit'],
    ['?limit=1001', 'limit'],
    ['?offset=-1', 'offset'],
    ['?offset=1e20', 'offset'],
    ['?cursor=bm90LWEtY3Vyc29y', 'cursor'],
    [`?offset=0&cursor=abc`, 'cursor'],
    ['?colour=red', 'colour'],
  ])('GET /usage%s is a 400 naming %s', async (query, param) => {
    expect(gatewayError(await list(query), 400).param).toBe(param);
  });

  it.each([
    ['/usage/export?days=0', 'days'],
    ['/usage/export?days=91', 'days'],
    ['/usage/export?days=abc', 'days'],
    ['/usage/export?days=1.5', 'days'],
    ['/usage/export?limit=5', 'limit'],
    ['/usage/daily?days=0', 'days'],
    ['/usage/daily?days=91', 'days'],
    ['/usage/daily?days=abc', 'days'],
    ['/usage/daily?colour=red', 'colour'],
    ['/latency?days=0', 'days'],
    ['/latency?days=91', 'days'],
    ['/latency?days=abc', 'days'],
  ])('GET %s is a 400 naming %s (no download started)', async (path, param) => {
    const reply = await h.call('GET', `/gateway/admin${path}`, { key: path.startsWith('/usage/export') ? billingKey : undefined });
    expect(gatewayError(reply, 400, 'invalid_request').param).toBe(param);
    expect(reply.headers.get('content-disposition')).toBeNull();
  });

  it('reads one record with its replay data; other organizations’ ids are 404', async () => {
    const res = await h.call('GET', `/gateway/admin/usage/${ours[0]._id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ request_id: ours[0]._id, cost: 0.1, replay: { estimated_input_tokens: 100, body_bytes: 400 } });
    const theirs = (await h.call('GET', '/gateway/admin/usage?limit=1', { key: h.other.admin })).body.items[0].request_id;
    expect(gatewayError(await h.call('GET', `/gateway/admin/usage/${theirs}`), 404, 'not_found').param).toBe('request_id');
    expect(gatewayError(await h.call('GET', '/gateway/admin/usage/gw_unknown'), 404, 'not_found').param).toBe('request_id');
  });

  it('gives a zero-filled daily breakdown of UTC days, today last', async () => {
    const res = await h.call('GET', '/gateway/admin/usage/daily');
    expect(res.status).toBe(200);
    expect(res.body.items).toHaveLength(30);
    const today = new Date().toISOString().slice(0, 10);
    expect(res.body.items[29].date).toBe(today);
    const byDate = new Map(res.body.items.map((d: Json) => [d.date, d]));
    const expected = new Map<string, { cost: number; requests: number; blocked: number }>();
    for (const r of ours.filter((r) => r.created_at.getTime() >= Date.parse(res.body.from))) {
      const day = r.created_at.toISOString().slice(0, 10);
      const e = expected.get(day) ?? { cost: 0, requests: 0, blocked: 0 };
      expected.set(day, { cost: e.cost + r.cost, requests: e.requests + 1, blocked: e.blocked + (r.blocked_by ? 1 : 0) });
    }
    for (const [day, e] of expected) expect(byDate.get(day)).toMatchObject({ requests: e.requests, blocked: e.blocked, cost: Math.round(e.cost * 1e6) / 1e6 });
    expect(res.body.total_requests).toBe([...expected.values()].reduce((s, e) => s + e.requests, 0));
    expect(res.body.items.filter((d: Json) => !expected.has(d.date)).every((d: Json) => d.requests === 0 && d.cost === 0)).toBe(true);
    expect((await h.call('GET', '/gateway/admin/usage/daily?days=1')).body.items.map((d: Json) => d.date)).toEqual([today]);
    expect(gatewayError(await h.call('GET', '/gateway/admin/usage/daily?days=91'), 400).param).toBe('days');
    expect(gatewayError(await h.call('GET', '/gateway/admin/usage/daily?days=0'), 400).param).toBe('days');
  });

  it('streams the CSV export with a download filename; parsed back it equals the JSON list', async () => {
    const res = await fetch(`${h.url}/gateway/admin/usage/export?days=30`, { headers: { 'x-svc-api-key': billingKey } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(res.headers.get('content-disposition')).toMatch(new RegExp(`^attachment; filename="usage-${h.org.id}-\\d{4}-\\d{2}-\\d{2}-to-\\d{4}-\\d{2}-\\d{2}\\.csv"$`));
    const rows: Record<string, string>[] = parse(await res.text(), { columns: true });
    const json = (await list('?days=30&limit=1000')).body.items as Json[];
    expect(rows).toHaveLength(json.length);
    expect(Object.keys(rows[0])).toEqual(Object.keys(json[0]));
    const asText = (value: unknown) => (value === null ? '' : String(value));
    rows.forEach((row, i) => {
      for (const [column, value] of Object.entries(json[i])) {
        const expected = column === 'agent' && typeof value === 'string' && value.startsWith('=') ? `'${value}` : asText(value);
        expect({ column, value: row[column] }).toEqual({ column, value: expected });
      }
    });
    expect(rows[0].agent).toBe('Team "A", ops\nnight');
  });

  it('exports every record of a large range in batches, each once', async () => {
    const big = await h.newOrg();
    const seeded = await h.seedUsage(big.id, Array.from({ length: 2_345 }, (_, i) => ({ created_at: ago(60_000 + (i % 50) * 1000), cost: 0.001 })));
    const res = await fetch(`${h.url}/gateway/admin/usage/export`, { headers: { 'x-svc-api-key': big.admin } });
    const rows: Record<string, string>[] = parse(await res.text(), { columns: true });
    expect(rows).toHaveLength(seeded.length);
    expect(new Set(rows.map((r) => r.request_id)).size).toBe(seeded.length);
    const times = rows.map((r) => Date.parse(r.created_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it('breaks the download (no clean end) when reading fails after the header row was sent', async () => {
    const big = await h.newOrg();
    await h.seedUsage(big.id, Array.from({ length: 1_200 }, (_, i) => ({ created_at: ago(60_000 + i), cost: 0.001 })));
    const usage = h.repos.usage;
    const real = usage.listBefore.bind(usage);
    let calls = 0;
    const failing = jest.spyOn(usage, 'listBefore').mockImplementation(async (...args) => {
      calls += 1;
      if (calls === 2) throw new Error('store unavailable');
      return real(...args);
    });
    try {
      const res = await fetch(`${h.url}/gateway/admin/usage/export`, { headers: { 'x-svc-api-key': big.admin } });
      expect(res.status).toBe(200);
      const read = await res.text().then(
        (text) => ({ completed: true, rows: text.split('\r\n').length }),
        (error: unknown) => ({ completed: false, error: String(error) }),
      );
      expect(read).toEqual({ completed: false, error: expect.stringMatching(/terminated|aborted|closed|reset/i) });
      expect(calls).toBe(2);
    } finally {
      failing.mockRestore();
    }
    const after = await fetch(`${h.url}/gateway/admin/usage/export`, { headers: { 'x-svc-api-key': big.admin } });
    expect((parse(await after.text(), { columns: true }) as unknown[]).length).toBe(1_200);
  });

  it('exports need billing:read; the other usage routes admin:read', async () => {
    gatewayError(await h.call('GET', '/gateway/admin/usage/export', { key: readerKey }), 403, 'insufficient_scope');
    for (const path of ['/gateway/admin/usage', '/gateway/admin/usage/daily', `/gateway/admin/usage/${ours[0]._id}`]) {
      gatewayError(await h.call('GET', path, { key: billingKey }), 403, 'insufficient_scope');
      expect((await h.call('GET', path, { key: readerKey })).status).toBe(200);
    }
    expect((await h.call('GET', '/gateway/admin/usage/export', { token: h.token(h.org.id, 'Member') })).status).toBe(200);
  });
});

describe('gateway admin: latency', () => {
  let h: AdminHarness;
  beforeAll(async () => {
    h = await startAdmin();
    await h.seedUsage(h.org.id, [
      ...Array.from({ length: 100 }, (_, i) => ({ latency_ms: 100 - i, created_at: ago(60_000 + i) })),
      ...Array.from({ length: 20 }, (_, i) => ({ provider: 'anthropic', model: 'claude-haiku-4-5', latency_ms: (i + 1) * 10, created_at: ago(60_000 + i) })),
      { latency_ms: 999_999, blocked_by: 'rate_limit', status_code: 429 },
      { latency_ms: 888_888, created_at: ago(30 * DAY) },
    ]);
    await h.seedUsage(h.other.id, [{ latency_ms: 777_777 }]);
  });
  afterAll(() => h.stop());

  it('reports nearest-rank p50, p95 and p99 by provider and by model, leaving refused requests out', async () => {
    const res = await h.call('GET', '/gateway/admin/latency');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ days: 7, method: 'nearest_rank' });
    expect(res.body.overall).toMatchObject({ count: 120, max_ms: 200 });
    expect(res.body.by_model).toEqual([
      { provider: 'openai', model: 'gpt-4o-mini', count: 100, p50_ms: 50, p95_ms: 95, p99_ms: 99, avg_ms: 50.5, max_ms: 100 },
      { provider: 'anthropic', model: 'claude-haiku-4-5', count: 20, p50_ms: 100, p95_ms: 190, p99_ms: 200, avg_ms: 105, max_ms: 200 },
    ]);
    expect(res.body.by_provider.map((p: Json) => [p.provider, p.count, p.p95_ms])).toEqual([
      ['openai', 100, 95],
      ['anthropic', 20, 190],
    ]);
    expect((await h.call('GET', '/gateway/admin/latency?days=90')).body.overall.max_ms).toBe(888_888);
    expect(gatewayError(await h.call('GET', '/gateway/admin/latency?days=91'), 400).param).toBe('days');
    gatewayError(await h.call('GET', '/gateway/admin/latency', { key: (await h.newKey(h.org.id, ['billing:read'])).plaintext }), 403, 'insufficient_scope');
  });
});
