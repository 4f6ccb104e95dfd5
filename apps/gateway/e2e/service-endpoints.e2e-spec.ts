import { createOrg, GatewayHarness, Json, metricSum, postJson, PROVIDER_KEY, startGateway } from './harness';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const BREAKER_FIELDS = ['provider', 'state', 'failure_count', 'failure_threshold', 'failure_window_seconds', 'recovery_timeout_seconds', 'last_failure_time', 'last_success_time', 'retry_after_seconds'];

const getJson = async (url: string): Promise<{ status: number; headers: Headers; body: Json }> => {
  const res = await fetch(url);
  return { status: res.status, headers: res.headers, body: (await res.json()) as Json };
};

function expectRecentIso(value: unknown): void {
  expect(value).toMatch(ISO);
  expect(Math.abs(Date.parse(value as string) - Date.now())).toBeLessThan(10_000);
}

/**
 * SPEC.md "Health and service endpoints", field by field, without authentication: `/v1/health`,
 * `/v1/providers/health`, `/v1/health/detailed`, `/` and `/metrics` (health.e2e-spec.ts covers `/health`).
 */
describe('gateway service endpoints', () => {
  let gw: GatewayHarness;
  const auth = () => ({ 'X-SVC-API-Key': gw.key, 'X-Provider-Key': PROVIDER_KEY });

  beforeAll(async () => {
    // Two failures open a breaker, and it stays open for the rest of the file.
    gw = await startGateway({ env: { CIRCUIT_BREAKER_FAILURE_THRESHOLD: '2', CIRCUIT_BREAKER_RECOVERY_SECONDS: '300' } });
  });
  afterAll(() => gw.stop());
  beforeEach(() => gw.mock.reset());

  it('GET /v1/health: exactly status, service, version, timestamp, redis, mongodb, degraded', async () => {
    // Redis connects in the background after start; health says so meanwhile.
    let { status, body } = await getJson(`${gw.url}/v1/health`);
    for (let i = 0; i < 50 && body.redis !== 'connected'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      ({ status, body } = await getJson(`${gw.url}/v1/health`));
    }
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(['degraded', 'mongodb', 'redis', 'service', 'status', 'timestamp', 'version']);
    expect(body).toMatchObject({ status: 'ok', service: expect.any(String), version: expect.any(String), redis: 'connected', degraded: false });
    expect(['connected', 'disconnected', 'not_configured']).toContain(body.mongodb);
    expectRecentIso(body.timestamp);
  });

  it('GET /: service, version, status and the links, each of which answers', async () => {
    const { status, body } = await getJson(`${gw.url}/`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ service: expect.any(String), version: expect.any(String), status: 'ok', docs: '/docs', health: '/v1/health', liveness: '/health', metrics: '/metrics' });
    expect(body.version).toBe((await getJson(`${gw.url}/v1/health`)).body.version);
    expect(Object.values(body.endpoints)).toEqual(
      expect.arrayContaining([
        'POST /v1/chat/completions',
        'POST /v1/{provider}/chat/completions',
        'POST /v1/messages',
        'POST /v1/embeddings',
        'GET /v1/models',
        'GET /v1/providers/health',
        'GET /v1/health/detailed',
      ]),
    );
    for (const link of [body.docs, body.health, body.liveness, body.metrics]) {
      expect({ link, status: (await fetch(`${gw.url}${link}`)).status }).toEqual({ link, status: 200 });
    }
  });

  it('GET /v1/providers/health: healthy, a timestamp, and a closed breaker record for every provider', async () => {
    const { status, body } = await getJson(`${gw.url}/v1/providers/health`);
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(['providers', 'status', 'timestamp']);
    expect(body.status).toBe('healthy');
    expectRecentIso(body.timestamp);
    const root = (await getJson(`${gw.url}/`)).body;
    const ids = body.providers.map((p: Json) => p.provider);
    expect(ids).toEqual(expect.arrayContaining(root.providers.map((p: Json) => p.id)));
    for (const record of body.providers) {
      expect(Object.keys(record).sort()).toEqual([...BREAKER_FIELDS].sort());
      expect(record).toMatchObject({ state: 'closed', failure_count: 0, failure_threshold: 2, failure_window_seconds: 60, recovery_timeout_seconds: 300 });
    }
  });

  it('GET /v1/health/detailed: every section of SPEC.md, with the traffic seen so far', async () => {
    expect((await postJson(`${gw.url}/v1/chat/completions`, { model: 'gpt-4o', messages: [{ role: 'user', content: 'count me' }] }, auth())).status).toBe(200);
    const { status, body } = await getJson(`${gw.url}/v1/health/detailed`);
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(['alerts', 'components', 'cost', 'metrics', 'overall_status', 'providers', 'rate_limits', 'timestamp', 'uptime_seconds']);
    expect(body.overall_status).toBe('healthy');
    expectRecentIso(body.timestamp);
    expect(typeof body.uptime_seconds).toBe('number');
    expect(body.uptime_seconds).toBeGreaterThan(0);
    expect(body.components).toMatchObject({ gateway: { status: 'ok' }, redis: { status: 'connected' }, mongodb: { status: expect.any(String) } });
    expect(body.providers.openai).toEqual({ status: 'healthy', circuit_breaker: expect.objectContaining({ provider: 'openai', state: 'closed' }) });
    expect(Object.keys(body.providers.openai.circuit_breaker).sort()).toEqual([...BREAKER_FIELDS].sort());
    const m = body.metrics;
    expect(Object.keys(m).sort()).toEqual(['error_rate', 'p50_latency_ms', 'p95_latency_ms', 'p99_latency_ms', 'total_requests']);
    expect(m.total_requests).toBeGreaterThanOrEqual(1);
    expect(m.error_rate).toBeGreaterThanOrEqual(0);
    expect(m.error_rate).toBeLessThanOrEqual(1);
    expect(m.p50_latency_ms).toBeGreaterThan(0);
    expect(m.p50_latency_ms).toBeLessThanOrEqual(m.p95_latency_ms);
    expect(m.p95_latency_ms).toBeLessThanOrEqual(m.p99_latency_ms);
    expect(Object.keys(body.cost).sort()).toEqual(['daily_budget_usd', 'today_usd', 'utilization_pct']);
    expect(body.cost.today_usd).toBeGreaterThan(0);
    expect(body.cost.daily_budget_usd).toBeGreaterThan(0);
    expect(body.cost.utilization_pct).toBeCloseTo(Math.round((body.cost.today_usd / body.cost.daily_budget_usd) * 10_000) / 100, 2);
    expect(body.alerts).toEqual([]);
    // The busiest organizations by this minute's requests (at most 5, busiest first).
    expect(body.rate_limits.length).toBeGreaterThanOrEqual(1);
    expect(body.rate_limits.length).toBeLessThanOrEqual(5);
    for (const entry of body.rate_limits) expect(entry).toEqual({ org_id: expect.stringMatching(/^org_/), current_rpm: expect.any(Number), rpm_limit: expect.any(Number) });
    const rpms = body.rate_limits.map((entry: Json) => entry.current_rpm);
    expect(rpms).toEqual([...rpms].sort((a, b) => b - a));
  });

  it('GET /metrics: requests by provider, model and status, latency histograms, blocks by reason, cost by provider', async () => {
    const labels = { provider: 'openai', model: 'gpt-4o-mini' };
    const before = {
      served: await metricSum(gw, 'svc_gateway_requests_total', { ...labels, status: '200' }),
      latency: await metricSum(gw, 'svc_gateway_request_duration_seconds_count', labels),
      blocked: await metricSum(gw, 'svc_gateway_governance_blocks_total', { reason: 'model_not_on_plan' }),
      cost: await metricSum(gw, 'svc_gateway_cost_usd_total', { provider: 'openai' }),
    };
    expect((await postJson(`${gw.url}/v1/chat/completions`, { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'metered' }] }, auth())).status).toBe(200);
    const free = await createOrg(gw, 'free');
    const blocked = await postJson(`${gw.url}/v1/chat/completions`, { model: 'o3-pro', messages: [{ role: 'user', content: 'x' }] }, { 'X-SVC-API-Key': free.key, 'X-Provider-Key': PROVIDER_KEY });
    expect(blocked.body.error?.code).toBe('model_not_on_plan');

    const res = await fetch(`${gw.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    expect(text).toContain('# TYPE svc_gateway_requests_total counter');
    expect(text).toContain('# TYPE svc_gateway_request_duration_seconds histogram');
    expect(text).toMatch(/svc_gateway_request_duration_seconds_bucket\{le="0\.005",provider="openai",model="gpt-4o-mini"\} \d+/);
    expect(await metricSum(gw, 'svc_gateway_requests_total', { ...labels, status: '200' })).toBe(before.served + 1);
    expect(await metricSum(gw, 'svc_gateway_request_duration_seconds_count', labels)).toBe(before.latency + 1);
    expect(await metricSum(gw, 'svc_gateway_request_duration_seconds_bucket', { ...labels, le: '+Inf' })).toBe(before.latency + 1);
    expect(await metricSum(gw, 'svc_gateway_requests_total', { provider: 'openai', model: 'o3-pro', status: '403' })).toBe(1);
    expect(await metricSum(gw, 'svc_gateway_governance_blocks_total', { reason: 'model_not_on_plan' })).toBe(before.blocked + 1);
    expect(await metricSum(gw, 'svc_gateway_cost_usd_total', { provider: 'openai' })).toBeGreaterThan(before.cost);
  });

  it('an opened breaker: a state change in /metrics, degraded provider health, an alert in the detailed health', async () => {
    expect(await metricSum(gw, 'svc_gateway_circuit_breaker_state_changes_total', { provider: 'groq' })).toBe(0);
    gw.mock.setBehavior({ match: { format: 'openai' }, fail: { status: 503, times: 2 } });
    for (let i = 0; i < 2; i++) {
      expect((await postJson(`${gw.url}/v1/groq/chat/completions`, { model: 'llama-3.3-70b-versatile', messages: [{ role: 'user', content: 'fail' }] }, auth())).status).toBe(503);
    }
    const open = await postJson(`${gw.url}/v1/groq/chat/completions`, { model: 'llama-3.3-70b-versatile', messages: [{ role: 'user', content: 'refused' }] }, auth());
    expect(open.body.error?.code).toBe('circuit_breaker_open');
    expect(gw.mock.totalRequests).toBe(2);
    expect(await metricSum(gw, 'svc_gateway_circuit_breaker_state_changes_total', { provider: 'groq', state: 'open' })).toBe(1);

    const providers = (await getJson(`${gw.url}/v1/providers/health`)).body;
    expect(providers.status).toBe('degraded');
    const record = providers.providers.find((p: Json) => p.provider === 'groq');
    expect(record).toMatchObject({ state: 'open', failure_threshold: 2 });
    expect(record.last_failure_time).toEqual(expect.any(Number));
    expect(record.retry_after_seconds).toBeGreaterThan(0);

    const detailed = await getJson(`${gw.url}/v1/health/detailed`);
    expect(detailed.status).toBe(200);
    expect(detailed.body.overall_status).toBe('degraded');
    expect(detailed.body.providers.groq).toMatchObject({ status: 'unhealthy', circuit_breaker: { state: 'open' } });
    expect(detailed.body.providers.openai.status).toBe('healthy');
    expect(detailed.body.alerts).toEqual([{ level: 'warning', message: expect.stringContaining('groq') }]);
    expect(detailed.body.metrics.error_rate).toBeGreaterThan(0);
  });
});
