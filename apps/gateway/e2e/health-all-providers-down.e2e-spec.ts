import { providerRegistry } from '@svc/proxy';
import { checkAnswer, freePort } from '@svc/testing';
import { GatewayHarness, Json, postJson, PROVIDER_KEY, startGateway } from './harness';

/**
 * SPEC.md "Health and service endpoints": `/v1/health/detailed` answers 503 when unhealthy (all
 * providers down), while `/v1/health` and `/health` stay 200. Every built-in provider's base URL
 * points at a port nothing listens on, and one refused connection opens its breaker.
 */
/** A model each provider's route accepts (a D provider's own route takes any model name). */
const modelFor = (id: string): string => ({ openai: 'gpt-4o', gemini: 'gemini-2.0-flash' })[id] ?? 'some-model';

describe('gateway health with every provider down', () => {
  let gw: GatewayHarness;
  const providers = providerRegistry.list();

  beforeAll(async () => {
    const env: Record<string, string> = { CIRCUIT_BREAKER_FAILURE_THRESHOLD: '1', CIRCUIT_BREAKER_RECOVERY_SECONDS: '300' };
    const closed = `http://127.0.0.1:${await freePort()}`;
    for (const provider of providers) env[`${provider.id.toUpperCase()}_BASE_URL`] = provider.format === 'openai' ? `${closed}/v1` : closed;
    gw = await startGateway({ env });
  });
  afterAll(() => gw.stop());

  it('opens every breaker; providers health is unhealthy, detailed health 503, liveness and /v1/health 200', async () => {
    const auth = { 'X-SVC-API-Key': gw.key, 'X-Provider-Key': PROVIDER_KEY };
    for (const provider of providers) {
      const res =
        provider.format === 'anthropic'
          ? await postJson(`${gw.url}/v1/${provider.id}/messages`, { model: 'claude-sonnet-4-5', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }, auth)
          : await postJson(`${gw.url}/v1/${provider.id}/chat/completions`, { model: modelFor(provider.id), messages: [{ role: 'user', content: 'x' }] }, auth);
      expect({ provider: provider.id, status: res.status }).toEqual({ provider: provider.id, status: 502 });
    }

    const health = (await (await fetch(`${gw.url}/v1/providers/health`)).json()) as Json;
    expect(health.status).toBe('unhealthy');
    expect(health.providers.map((record: Json) => record.state)).toEqual(providers.map(() => 'open'));

    const detailed = await fetch(`${gw.url}/v1/health/detailed`);
    expect(detailed.status).toBe(503);
    const body = (await detailed.json()) as Json;
    expect(body.overall_status).toBe('unhealthy');
    // The 503 body is the one /docs/json describes, open breakers' records (retry_after_seconds set) included.
    const doc = (await (await fetch(`${gw.url}/docs/json`)).json()) as Json;
    expect(checkAnswer(doc, 'get', '/v1/health/detailed', 503, body)).toEqual({ route: 'get /v1/health/detailed 503', documented: true, departures: [] });
    expect(checkAnswer(doc, 'get', '/v1/providers/health', 200, health)).toEqual({ route: 'get /v1/providers/health 200', documented: true, departures: [] });
    expect(Object.values(body.providers).map((entry) => (entry as Json).status)).toEqual(providers.map(() => 'unhealthy'));

    const v1 = await fetch(`${gw.url}/v1/health`);
    expect(v1.status).toBe(200);
    expect(((await v1.json()) as Json).status).toBe('ok');
    expect((await fetch(`${gw.url}/health`)).status).toBe(200);
  });
});
