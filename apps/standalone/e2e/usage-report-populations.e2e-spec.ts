import { asOrgId, generateApiKey, hashApiKey, keyDisplayPrefix, keyLastFour } from '@svc/domain';
import { MockProvider, startMockProvider } from '@svc/mock-provider';
import { UsageRecorder } from '@svc/proxy';
import { bootService, TestService } from '@svc/testing';
import { SERVICE } from '../src/app.module';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are asserted field by field
type Json = Record<string, any>;

const PROVIDER_KEY = 'sk-mock-provider-key';
/** What the mock provider waits before answering: every provider call takes at least this long. */
const PROVIDER_MS = 250;
const AGENT = 'report-bot';

/**
 * The population behind each report figure, through the real proxy: one organization sends two
 * provider calls (slow: the mock waits PROVIDER_MS), six idempotent replays of them and three
 * requests refused before governance (a malformed body, a path no route serves, an unknown provider),
 * all instant, and one request governance blocks. Request counts count every request; latency
 * figures and the average cost per request are those of the provider calls; policy simulation
 * replays the governance decisions (docs/admin-api.md, docs/org-api.md).
 */
describe('report populations: requests served, provider calls and governance decisions', () => {
  let mock: MockProvider;
  let service: TestService;
  let key: string;
  const calls: Json[] = [];

  beforeAll(async () => {
    mock = await startMockProvider({ port: 0, record: false });
    mock.setBehavior({ latencyMs: PROVIDER_MS });
    service = await bootService(SERVICE, {
      REDIS_URL: process.env.TEST_REDIS_URL as string,
      OPENAI_BASE_URL: `${mock.url}/v1`,
      OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
    });
    const repos = service.runtime.repositories;
    const org = await repos.organizations.create({ name: `populations-${Math.random().toString(36).slice(2)}`, plan: 'enterprise' });
    key = generateApiKey();
    await repos.apiKeys.create(asOrgId(org._id), {
      name: AGENT,
      key_hash: hashApiKey(key),
      key_prefix: keyDisplayPrefix(key),
      last_four: keyLastFour(key),
      scopes: ['gateway:write', 'admin:read', 'admin:write', 'billing:read'],
    });
    expect((await send('POST', '/gateway/admin/policies', JSON.stringify({ allowed_models: ['gpt-4o'] }))).status).toBe(201);

    const chat = (text: string) => JSON.stringify({ model: 'gpt-4o', max_tokens: 50, messages: [{ role: 'user', content: text }] });
    for (const text of ['first question', 'second question']) {
      const idempotency = { 'idempotency-key': `populations-${text.replace(' ', '-')}-${Date.now()}` };
      const served = await send('POST', '/v1/chat/completions', chat(text), idempotency);
      expect(served.status).toBe(200);
      calls.push(served);
      for (let i = 0; i < 3; i++) {
        const replay = await send('POST', '/v1/chat/completions', chat(text), idempotency);
        expect([replay.status, replay.headers.get('idempotent-replayed')]).toEqual([200, 'true']);
      }
    }
    const refused: [string, string, number][] = [
      ['/v1/OpenAI/chat/completions', '{not json', 400],
      ['/v1/openai/files', chat('a file'), 404],
      ['/v1/nosuch/chat/completions', chat('nowhere'), 404],
    ];
    for (const [path, body, status] of refused) expect((await send('POST', path, body)).status).toBe(status);
    const blocked = await send('POST', '/v1/chat/completions', JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }));
    expect([blocked.status, blocked.body.error?.code]).toEqual([403, 'model_not_allowed']);
    await service.apps[0].get(UsageRecorder).flush();
    for (const call of calls) call.record = await admin(`/usage/${call.id}`);
  });
  afterAll(async () => {
    await service?.stop();
    await mock?.close();
  });

  async function send(method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<{ status: number; id: string; headers: Headers; body: Json }> {
    const res = await fetch(`${service.urls.gateway}${path}`, {
      method,
      headers: { 'content-type': 'application/json', 'x-svc-api-key': key, 'x-provider-key': PROVIDER_KEY, ...headers },
      body,
    });
    const text = await res.text();
    return { status: res.status, id: res.headers.get('x-svc-request-id') as string, headers: res.headers, body: text.startsWith('{') ? (JSON.parse(text) as Json) : {} };
  }
  const get = async (url: string, headers: Record<string, string>): Promise<Json> => {
    const res = await fetch(url, { headers });
    expect(res.status).toBe(200);
    return (await res.json()) as Json;
  };
  const admin = (path: string) => get(`${service.urls.gateway}/gateway/admin${path}`, { 'x-svc-api-key': key });
  const orgApi = (path: string) => get(`${service.urls['org-api']}/api/v1${path}`, { 'x-api-key': key });
  const costOf = () => calls.reduce((sum, call) => sum + (call.record.cost as number), 0);
  const micro = (usd: number) => Math.round(usd * 1e6) / 1e6;

  it('the seeded records: two provider calls, six replays, three refusals before governance, one governance block', async () => {
    const listed = await admin('/usage?days=1');
    const shape = (listed.items as Json[]).map((r) => `${r.usage_source}:${r.blocked_by ?? '-'}:${r.upstream_latency_ms === null ? 'no call' : 'call'}`);
    const count = (value: string) => shape.filter((s) => s === value).length;
    expect(listed.total).toBe(12);
    expect([count('provider:-:call'), count('replay:-:no call'), count('none:-:no call'), count('none:model_not_allowed:no call')]).toEqual([2, 6, 3, 1]);
    for (const call of calls) expect(call.record.latency_ms).toBeGreaterThanOrEqual(PROVIDER_MS);
  });

  it('/usage/daily and /billing/summary count every request, the refused and the replayed ones', async () => {
    const daily = await admin('/usage/daily?days=1');
    expect(daily.total_requests).toBe(12);
    expect(daily.items.at(-1)).toMatchObject({ requests: 12, blocked: 1 });
    const billing = await admin('/billing/summary');
    expect(billing).toMatchObject({ requests: 12, blocked: 1, total_cost: costOf() });
  });

  it('/latency: percentiles of the provider calls, not of the replays and refusals answered in a millisecond', async () => {
    const report = await admin('/latency?days=1');
    expect(report.overall.count).toBe(2);
    expect(report.overall.p50_ms).toBeGreaterThanOrEqual(PROVIDER_MS);
    expect(report.overall.p99_ms).toBe(Math.max(...calls.map((call) => call.record.latency_ms as number)));
    expect(report.by_provider).toEqual([expect.objectContaining({ provider: 'openai', count: 2 })]);
    expect(report.by_model).toEqual([expect.objectContaining({ provider: 'openai', model: 'gpt-4o', count: 2 })]);
  });

  it('agent health: every request counted, the refusals as errors, latency percentiles of the provider calls', async () => {
    const health = await orgApi(`/agents/${AGENT}/health`);
    // 12 requests: 1 blocked by governance; 11 served (replays included), 3 of them refused with an error.
    expect(health).toMatchObject({ agent_name: AGENT, requests: 12, blocked: 1, executions: 11, errors: 3, error_rate: 0.2727 });
    expect(health.p50_latency_ms).toBeGreaterThanOrEqual(PROVIDER_MS);
    expect(health.p95_latency_ms).toBeGreaterThanOrEqual(PROVIDER_MS);
    expect(health.total_cost).toBe(costOf());
  });

  it('cost metrics: requests count the served ones; avg_cost_per_request and avg_latency_ms are those of the provider calls', async () => {
    const report = await orgApi('/admin/metrics/cost-optimization?period=24h');
    const cost = micro(costOf());
    // openai: 2 calls, 6 replays, 2 refusals naming openai in the path; `unknown`: the unknown provider's 404.
    expect(report.by_provider).toEqual({
      openai: { cost, requests: 10, avg_cost_per_request: micro(costOf() / 2) },
      unknown: { cost: 0, requests: 1, avg_cost_per_request: 0 },
    });
    const agent = report.by_agent[AGENT];
    expect(agent).toMatchObject({ cost, executions: 11 });
    expect(agent.avg_latency_ms).toBeGreaterThanOrEqual(PROVIDER_MS);
    expect((report.time_series as Json[]).reduce((sum, point) => sum + point.requests, 0)).toBe(11);
  });

  it('policy simulation replays the governance decisions: no replay or refusal before governance is counted or re-decided', async () => {
    const res = await fetch(`${service.urls.gateway}/gateway/admin/policies/simulate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-svc-api-key': key },
      body: JSON.stringify({ draft_policy: { allowed_models: ['gpt-4o', 'gpt-4o-mini'], rpm_limit: 3 }, replay_hours: 1 }),
    });
    expect(res.status).toBe(200);
    const simulation = (await res.json()) as Json;
    // The two provider calls and the block: within the draft's 3 a minute, and the block is allowed by the draft's list.
    expect(simulation).toMatchObject({ records_replayed: 3, truncated: false });
    expect(simulation.current).toEqual({ allowed: 2, blocked: 1, needs_approval: 0 });
    expect(simulation.simulated).toEqual({ allowed: 3, blocked: 0, needs_approval: 0 });
    expect(simulation.blocked_by_stage).toEqual([]);
    expect(simulation.newly_blocked).toEqual({ count: 0, example_request_ids: [] });
    expect(simulation.newly_allowed.count).toBe(1);
  });
});
