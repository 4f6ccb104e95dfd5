import { randomBytes } from 'node:crypto';
import { asOrgId } from '@svc/domain';
import { GatewayHarness, metricSum, postJson, PROVIDER_KEY, startGateway } from './harness';

/** The sample lines of the per-request families on /metrics (one line per series). */
const REQUEST_FAMILIES = ['svc_gateway_requests_total', 'svc_gateway_request_duration_seconds_count', 'svc_gateway_cost_usd_total'];

async function scrape(gw: GatewayHarness): Promise<string> {
  const res = await fetch(`${gw.url}/metrics`);
  expect(res.status).toBe(200);
  return res.text();
}

function series(text: string): string[] {
  return text.split('\n').filter((line) => REQUEST_FAMILIES.some((family) => line.startsWith(`${family}{`)));
}

const random = (prefix: string) => `${prefix}-${randomBytes(6).toString('hex')}`;

/**
 * /metrics is public: its labels may neither grow with client-chosen names (a key holder could
 * exhaust the gateway's memory) nor name an organization's provider targets (another tenant's data).
 */
describe('gateway /metrics labels', () => {
  let gw: GatewayHarness;
  const targetId = random('acme-secret');
  const targetName = random('Acme Private Cluster');
  const auth = () => ({ 'X-SVC-API-Key': gw.key, 'X-Provider-Key': PROVIDER_KEY });
  const chat = (model: string) => ({ model, messages: [{ role: 'user', content: 'label me' }] });

  beforeAll(async () => {
    // The provider target is the mock on 127.0.0.1: a private address.
    gw = await startGateway({ env: { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true', CIRCUIT_BREAKER_FAILURE_THRESHOLD: '2', CIRCUIT_BREAKER_RECOVERY_SECONDS: '300' } });
    await gw.repos.providerTargets.create(asOrgId(gw.orgId), { name: targetName, provider_id: targetId, base_url: `${gw.mock.url}/v1`, models: ['acme-listed-model'] });
    await gw.service.runtime.invalidation.publish('provider-target', gw.orgId);
  });
  afterAll(() => gw.stop());

  /** `count` rounds of requests, each with fresh random model names and provider paths. */
  async function sendRandomNames(count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      // Unknown to every family: routed to openai by the generic endpoint.
      expect((await postJson(`${gw.url}/v1/chat/completions`, chat(random('made-up')), auth())).status).toBe(200);
      // An openai-looking variant: not a snapshot of gpt-4o, so priced at the default.
      expect((await postJson(`${gw.url}/v1/chat/completions`, chat(random('gpt-4o')), auth())).status).toBe(200);
      // A self-hosted (D) provider names its models freely.
      expect((await postJson(`${gw.url}/v1/ollama/chat/completions`, chat(random('local')), auth())).status).toBe(200);
      // The D catch-all: any path, any model.
      expect((await postJson(`${gw.url}/v1/ollama/${random('path')}`, { model: random('passthrough') }, auth())).status).toBe(200);
      // The organization's own target, by path and by `target/model`.
      expect((await postJson(`${gw.url}/v1/${targetId}/chat/completions`, chat(random('target-model')), auth())).status).toBe(200);
      expect((await postJson(`${gw.url}/v1/chat/completions`, chat(`${targetId}/acme-listed-model`), auth())).status).toBe(200);
      // A provider that does not exist, with and without a key.
      expect((await postJson(`${gw.url}/v1/${random('no-such-provider')}/chat/completions`, chat('gpt-4o'), auth())).status).toBe(404);
      expect((await postJson(`${gw.url}/v1/${random('no-such-provider')}/chat/completions`, chat('gpt-4o'))).status).toBe(401);
    }
  }

  it('counts random model names and provider paths under fixed labels: the series do not grow per name', async () => {
    const before = {
      openaiOther: await metricSum(gw, 'svc_gateway_requests_total', { provider: 'openai', model: 'other', status: '200' }),
      ollamaOther: await metricSum(gw, 'svc_gateway_requests_total', { provider: 'ollama', model: 'other', status: '200' }),
      target: await metricSum(gw, 'svc_gateway_requests_total', { provider: 'target', model: 'other', status: '200' }),
      unknown404: await metricSum(gw, 'svc_gateway_requests_total', { provider: 'unknown', model: 'unknown', status: '404' }),
      unknown401: await metricSum(gw, 'svc_gateway_requests_total', { provider: 'unknown', model: 'unknown', status: '401' }),
    };
    await sendRandomNames(3);
    const afterFirst = series(await scrape(gw));

    await sendRandomNames(10);
    const text = await scrape(gw);
    // Ten more rounds of new names: not one new series.
    expect(series(text).map((line) => line.replace(/ \S+$/, ''))).toEqual(afterFirst.map((line) => line.replace(/ \S+$/, '')));
    expect(text).not.toMatch(/made-up|gpt-4o-[0-9a-f]{12}|local-|passthrough-|path-|target-model|no-such-provider/);
    // Every request was counted, under the fixed values.
    expect(await metricSum(gw, 'svc_gateway_requests_total', { provider: 'openai', model: 'other', status: '200' })).toBe(before.openaiOther + 26);
    expect(await metricSum(gw, 'svc_gateway_requests_total', { provider: 'ollama', model: 'other', status: '200' })).toBe(before.ollamaOther + 26);
    expect(await metricSum(gw, 'svc_gateway_requests_total', { provider: 'target', model: 'other', status: '200' })).toBe(before.target + 26);
    expect(await metricSum(gw, 'svc_gateway_requests_total', { provider: 'unknown', model: 'unknown', status: '404' })).toBe(before.unknown404 + 13);
    expect(await metricSum(gw, 'svc_gateway_requests_total', { provider: 'unknown', model: 'unknown', status: '401' })).toBe(before.unknown401 + 13);
  });

  it('never names an organization provider target: its id, name and models are counted as `target` / `other`', async () => {
    const costBefore = await metricSum(gw, 'svc_gateway_cost_usd_total', { provider: 'target' });
    expect((await postJson(`${gw.url}/v1/${targetId}/chat/completions`, chat('acme-listed-model'), auth())).status).toBe(200);
    // Upstream 5xx answers from the target open its breaker: a state change in /metrics too.
    gw.mock.setBehavior({ match: { format: 'openai' }, fail: { status: 503, times: 2 } });
    for (let i = 0; i < 2; i++) expect((await postJson(`${gw.url}/v1/${targetId}/chat/completions`, chat('acme-listed-model'), auth())).status).toBe(503);
    gw.mock.reset();
    const text = await scrape(gw);
    expect(text).not.toContain(targetId);
    expect(text).not.toContain(targetName);
    expect(text).not.toContain('acme');
    const providers = new Set(series(text).map((line) => /provider="([^"]*)"/.exec(line)?.[1]));
    expect([...providers].sort()).toEqual(['ollama', 'openai', 'target', 'unknown']);
    expect(await metricSum(gw, 'svc_gateway_requests_total', { provider: 'target', status: '503' })).toBe(2);
    expect(await metricSum(gw, 'svc_gateway_circuit_breaker_state_changes_total', { provider: 'target', state: 'open' })).toBe(1);
    expect(await metricSum(gw, 'svc_gateway_cost_usd_total', { provider: 'target' })).toBeGreaterThan(costBefore);
    // A model the registry knows keeps its name.
    expect((await postJson(`${gw.url}/v1/chat/completions`, chat('gpt-4o-mini'), auth())).status).toBe(200);
    expect(await metricSum(gw, 'svc_gateway_requests_total', { provider: 'openai', model: 'gpt-4o-mini', status: '200' })).toBe(1);
  });
});
