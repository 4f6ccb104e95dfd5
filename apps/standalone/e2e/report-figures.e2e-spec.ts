import { roundUsd } from '@svc/domain';
import { MODEL_PRICES } from '@svc/governance';
import { countTokens, MockProvider, mockReply, startMockProvider } from '@svc/mock-provider';
import { UsageRecorder } from '@svc/proxy';
import { bootService, TestService } from '@svc/testing';
import { SERVICE } from '../src/app.module';
import { csvObjects, Json, micros, newOrganization, PROVIDER_KEY, reportClient, six } from './report-figures.helpers';

interface Sent {
  text: string;
  provider: string;
  model: string;
  keyName: string;
  agent: string;
  /** What the request is in the reports: a provider call, an idempotent replay or a governance refusal. */
  kind: 'call' | 'replay' | 'blocked';
  id: string;
  status: number;
}

/** The expected charge of one call, from the price table and the mock's token counts (ceil(characters / 4)). */
function expectedCall(model: string, text: string): { input: number; output: number; cost: number } {
  const price = MODEL_PRICES[model];
  const input = countTokens(text);
  const output = countTokens(mockReply(text));
  return { input, output, cost: (input * price.input + output * price.output) / 1e6 };
}

/**
 * The figures finance reads, through real requests: one organization sends provider calls to three
 * providers and four models (whole answers and streams), with two keys and three agents, idempotent
 * replays and a governance refusal; another organization spends too. Each report of the gateway admin
 * (`/usage`, `/usage/daily`, `/usage/export`, `/billing/summary`, `/billing/export` JSON and CSV,
 * `/latency`) and of the organization API (cost metrics, named budgets) is compared with the figures
 * computed here from the price table and the token counts.
 */
describe('report figures: every usage and cost report against figures computed by hand', () => {
  let mock: MockProvider;
  let service: TestService;
  let alpha: { id: string; key: string };
  let beta: { id: string; key: string };
  let other: { id: string; key: string };
  const sent: Sent[] = [];

  beforeAll(async () => {
    mock = await startMockProvider({ port: 0, record: false });
    service = await bootService(SERVICE, {
      REDIS_URL: process.env.TEST_REDIS_URL as string,
      OPENAI_BASE_URL: `${mock.url}/v1`,
      ANTHROPIC_BASE_URL: mock.url,
      MISTRAL_BASE_URL: `${mock.url}/v1`,
      OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
    });
    const repos = service.runtime.repositories;
    const org = await newOrganization(repos, 'figures');
    alpha = await org.newKey('alpha');
    beta = await org.newKey('beta', ['gateway:write']);
    other = await (await newOrganization(repos, 'figures-other')).newKey('alpha');
    const policy = await post('/gateway/admin/policies', alpha.key, { allowed_models: ['gpt-4o', 'gpt-4o-mini', 'claude-haiku-4-5', 'mistral-small-latest'] });
    expect(policy.status).toBe(201);

    const call = async (kind: Sent['kind'], key: { key: string }, keyName: string, agent: string | null, provider: string, model: string, text: string, extra: Json = {}, headers: Record<string, string> = {}) => {
      const messages = [{ role: 'user', content: text }];
      const path = provider === 'anthropic' ? '/v1/messages' : '/v1/chat/completions';
      const res = await post(path, key.key, { model, max_tokens: 200, messages, ...extra }, { ...(agent ? { 'x-svc-agent': agent } : {}), ...headers });
      sent.push({ text, provider, model, keyName, agent: agent ?? keyName, kind, id: res.id, status: res.status });
      return res;
    };
    await call('call', alpha, 'alpha', 'writer', 'openai', 'gpt-4o', 'Write a haiku about the sea, please.');
    await call('call', alpha, 'alpha', 'writer', 'openai', 'gpt-4o', 'Stream a limerick about a cat.', { stream: true });
    await call('call', beta, 'beta', null, 'openai', 'gpt-4o-mini', 'Summarize: the quick brown fox jumps over the lazy dog.');
    await call('call', beta, 'beta', null, 'openai', 'gpt-4o-mini', 'Translate hello into French.');
    await call('call', alpha, 'alpha', 'reviewer', 'anthropic', 'claude-haiku-4-5', 'Review this sentence for grammar mistakes.');
    await call('call', alpha, 'alpha', 'reviewer', 'mistral', 'mistral-small-latest', 'Stream three words about mountains.', {
      stream: true,
      // The real D providers send the usage unasked (the gateway injects nothing for them); the mock, only when asked.
      stream_options: { include_usage: true },
    });
    const idempotency = { 'idempotency-key': `figures-${Date.now()}` };
    await call('call', alpha, 'alpha', 'writer', 'openai', 'gpt-4o-mini', 'Idempotent question number one.', {}, idempotency);
    await call('replay', alpha, 'alpha', 'writer', 'openai', 'gpt-4o-mini', 'Idempotent question number one.', {}, idempotency);
    await call('replay', alpha, 'alpha', 'writer', 'openai', 'gpt-4o-mini', 'Idempotent question number one.', {}, idempotency);
    await call('blocked', alpha, 'alpha', 'writer', 'openai', 'gpt-4.1', 'A model the policy does not allow.');
    // Another organization's spend, same key name and agent: never in the first one's figures.
    await post('/v1/chat/completions', other.key, { model: 'gpt-4o', max_tokens: 200, messages: [{ role: 'user', content: 'x'.repeat(4000) }] }, { 'x-svc-agent': 'writer' });
    await service.apps[0].get(UsageRecorder).flush();
  });
  afterAll(async () => {
    await service?.stop();
    await mock?.close();
  });

  async function post(path: string, key: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; id: string }> {
    const res = await fetch(`${service.urls.gateway}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-svc-api-key': key, 'x-provider-key': PROVIDER_KEY, 'anthropic-version': '2023-06-01', ...headers },
      body: JSON.stringify(body),
    });
    await res.text();
    return { status: res.status, id: res.headers.get('x-svc-request-id') as string };
  }

  const reports = () => reportClient(service, alpha.key);
  const calls = () => sent.filter((s) => s.kind === 'call');
  const costOf = (rows: Sent[]) => rows.filter((s) => s.kind === 'call').reduce((sum, s) => sum + expectedCall(s.model, s.text).cost, 0);
  const tokens = (rows: Sent[], side: 'input' | 'output') => rows.filter((s) => s.kind === 'call').reduce((sum, s) => sum + expectedCall(s.model, s.text)[side], 0);
  const by = <K extends string>(keyOf: (s: Sent) => K): Map<K, Sent[]> => {
    const groups = new Map<K, Sent[]>();
    for (const s of sent) groups.set(keyOf(s), [...(groups.get(keyOf(s)) ?? []), s]);
    return groups;
  };
  const amounts = (rows: Sent[]) => ({
    requests: rows.length,
    blocked: rows.filter((s) => s.kind === 'blocked').length,
    input_tokens: tokens(rows, 'input'),
    output_tokens: tokens(rows, 'output'),
    cost: micros(costOf(rows)) / 1e6,
  });

  it('records each request with the tokens and cost computed from the price table', async () => {
    expect(sent.map((s) => s.status)).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 403]);
    for (const s of sent) {
      const record = await reports().admin(`/usage/${s.id}`);
      const expected = s.kind === 'call' ? expectedCall(s.model, s.text) : { input: 0, output: 0, cost: 0 };
      expect({ id: s.id, provider: record.provider, model: record.model, agent: record.agent, key: record.key_id, input: record.input_tokens, output: record.output_tokens, source: record.usage_source }).toEqual({
        id: s.id,
        provider: s.provider,
        model: s.model,
        agent: s.agent,
        key: s.keyName === 'alpha' ? alpha.id : beta.id,
        input: expected.input,
        output: expected.output,
        source: { call: 'provider', replay: 'replay', blocked: 'none' }[s.kind],
      });
      expect(record.cost).toBe(roundUsd(expected.cost));
    }
  });

  it('/usage and its CSV export list the same records and amounts', async () => {
    const listed = await reports().admin('/usage?days=1&limit=1000');
    expect(listed.total).toBe(sent.length);
    expect(new Set((listed.items as Json[]).map((item) => item.request_id))).toEqual(new Set(sent.map((s) => s.id)));
    const rows = csvObjects(await reports().adminText('/usage/export?days=1'));
    expect(rows.map((row) => row.request_id)).toEqual((listed.items as Json[]).map((item) => item.request_id));
    for (const [i, row] of rows.entries()) {
      const item = listed.items[i] as Json;
      expect([Number(row.cost), Number(row.input_tokens), Number(row.output_tokens), row.provider, row.agent]).toEqual([item.cost, item.input_tokens, item.output_tokens, item.provider, item.agent]);
    }
    expect(micros(rows.reduce((sum, row) => sum + Number(row.cost), 0))).toBe(micros(costOf(sent)));
  });

  it('/usage/daily: today holds every request, the refusal counted in `blocked`, the tokens and the cost', async () => {
    const daily = await reports().admin('/usage/daily?days=2');
    const today = new Date().toISOString().slice(0, 10);
    expect(daily.items).toHaveLength(2);
    expect(daily.items[0]).toEqual({ date: daily.items[0].date, requests: 0, blocked: 0, cost: 0, estimated_cost: 0, input_tokens: 0, output_tokens: 0 });
    expect(daily.items[1]).toMatchObject({ date: today, requests: 10, blocked: 1, input_tokens: tokens(sent, 'input'), output_tokens: tokens(sent, 'output') });
    expect(micros(daily.items[1].cost)).toBe(micros(costOf(sent)));
    expect(daily).toMatchObject({ total_requests: 10, total_cost: daily.items[1].cost });
  });

  it('/billing/summary: totals and every grouping from the same records, costliest first', async () => {
    const summary = await reports().admin('/billing/summary');
    expect(summary).toMatchObject({ month: new Date().toISOString().slice(0, 7), currency: 'USD', ...amounts(sent), total_cost: amounts(sent).cost });
    // Each group: its records' figures, the cost in whole micro-dollars within one of the records' sum, all adding up to the total.
    const check = (field: string, groups: Map<string, Sent[]>, keyOf: (name: string) => Json) => {
      const rows = summary[field] as Json[];
      expect(rows.map((row) => row.cost)).toEqual(rows.map((row) => row.cost as number).sort((a, b) => b - a));
      expect(rows).toHaveLength(groups.size);
      for (const [name, members] of groups) {
        const row = rows.find((candidate) => Object.entries(keyOf(name)).every(([k, v]) => candidate[k] === v)) as Json;
        const { cost: _cost, ...figures } = amounts(members);
        expect({ field, ...row, cost: undefined }).toEqual({ field, ...keyOf(name), ...figures, cost: undefined });
        expect(Math.abs(micros(row.cost) - costOf(members) * 1e6)).toBeLessThan(1);
      }
      expect(rows.reduce((sum, row) => sum + micros(row.cost), 0)).toBe(micros(summary.total_cost));
    };
    check('by_provider', by((s) => s.provider), (provider) => ({ provider }));
    check('by_model', by((s) => `${s.provider}|${s.model}`), (id) => ({ provider: id.split('|')[0], model: id.split('|')[1] }));
    check('by_key', by((s) => s.keyName), (name) => ({ key_id: name === 'alpha' ? alpha.id : beta.id, key_name: name }));
    check('by_agent', by((s) => s.agent), (agent) => ({ agent }));
  });

  it('/billing/export, JSON and CSV: the same lines, adding up to the summary', async () => {
    const summary = await reports().admin('/billing/summary');
    const exported = await reports().admin('/billing/export');
    expect(exported).toMatchObject({ month: summary.month, total_cost: summary.total_cost, currency: 'USD' });
    const lines = exported.lines as Json[];
    expect(lines.reduce((sum, line) => sum + line.requests, 0)).toBe(summary.requests);
    expect(lines.reduce((sum, line) => sum + micros(line.cost), 0)).toBe(micros(summary.total_cost));
    const csv = csvObjects(await reports().adminText('/billing/export?format=csv'));
    expect(csv.map((row) => ({ ...row, requests: Number(row.requests), blocked: Number(row.blocked), input_tokens: Number(row.input_tokens), output_tokens: Number(row.output_tokens), cost: Number(row.cost), key_id: row.key_id || null, key_name: row.key_name || null, agent: row.agent || null }))).toEqual(lines);
  });

  it('/latency: the provider calls only, the percentiles observed values of the records', async () => {
    const latency = await reports().admin('/latency?days=1');
    const records = await Promise.all(calls().map((s) => reports().admin(`/usage/${s.id}`)));
    const values = records.map((r) => r.latency_ms as number).sort((a, b) => a - b);
    const rank = (p: number) => values[Math.max(1, Math.ceil((p / 100) * values.length)) - 1];
    expect(latency.overall).toMatchObject({ count: calls().length, p50_ms: rank(50), p95_ms: rank(95), p99_ms: rank(99), max_ms: values.at(-1) });
    expect(latency.overall.avg_ms).toBeCloseTo(values.reduce((a, b) => a + b, 0) / values.length, 2);
    const counts = Object.fromEntries([...by((s) => s.provider)].map(([provider, rows]) => [provider, rows.filter((s) => s.kind === 'call').length]));
    expect(Object.fromEntries((latency.by_provider as Json[]).map((row) => [row.provider, row.count]))).toEqual(counts);
  });

  it('cost metrics: proxied requests and their cost, averages per provider call, series and named budgets agree', async () => {
    const report = await reports().org('/admin/metrics/cost-optimization?period=24h&granularity=hourly');
    const proxied = sent.filter((s) => s.kind !== 'blocked');
    expect(report.total_cost).toBe(six(costOf(sent)));
    for (const [provider, rows] of by((s) => s.provider)) {
      const served = rows.filter((s) => s.kind !== 'blocked');
      const callCount = rows.filter((s) => s.kind === 'call').length;
      expect({ provider, ...report.by_provider[provider] }).toEqual({ provider, cost: six(costOf(rows)), requests: served.length, avg_cost_per_request: six(costOf(rows) / callCount) });
    }
    for (const [agent, rows] of by((s) => s.agent)) {
      expect({ agent, cost: report.by_agent[agent].cost, executions: report.by_agent[agent].executions }).toEqual({ agent, cost: six(costOf(rows)), executions: rows.filter((s) => s.kind !== 'blocked').length });
    }
    const series = report.time_series as Json[];
    expect(series.reduce((sum, point) => sum + point.requests, 0)).toBe(proxied.length);
    expect(micros(series.reduce((sum, point) => sum + point.cost, 0))).toBe(micros(costOf(sent)));

    for (const type of ['daily', 'weekly', 'monthly']) {
      const created = await reports().orgSend('POST', '/admin/costs/budgets', { name: `figures ${type}`, type, limit: 100 });
      expect(created.status).toBe(200);
      expect(created.body.current).toBe(roundUsd(costOf(sent)));
      expect(created.body.utilization).toBe(Math.round(costOf(sent) * 100) / 100);
    }
  });

  it("another organization's figures hold only its own request", async () => {
    const theirs = reportClient(service, other.key);
    const summary = await theirs.admin('/billing/summary');
    const cost = expectedCall('gpt-4o', 'x'.repeat(4000)).cost;
    expect(summary).toMatchObject({ requests: 1, blocked: 0, total_cost: micros(cost) / 1e6 });
    expect((await theirs.admin('/usage/daily?days=1')).total_requests).toBe(1);
    expect((await theirs.admin('/latency?days=1')).overall.count).toBe(1);
    expect((await theirs.org('/admin/metrics/cost-optimization?period=24h')).total_cost).toBe(six(cost));
  });
});
