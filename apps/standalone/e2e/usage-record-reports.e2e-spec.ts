import { asOrgId, generateApiKey, hashApiKey, keyDisplayPrefix, keyLastFour } from '@svc/domain';
import { MockProvider, startMockProvider } from '@svc/mock-provider';
import { UsageRecorder } from '@svc/proxy';
import { bootService, TestService } from '@svc/testing';
import { SERVICE } from '../src/app.module';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are asserted field by field
type Json = Record<string, any>;

const PROVIDER_KEY = 'sk-mock-provider-key';

/**
 * Usage records of requests refused before routing, and of idempotent replays, through the real
 * proxy, and how the reports built from them show them: the admin `/usage`, `/usage/daily` and
 * `/billing/summary` (gateway) and the organization API's cost metrics.
 */
describe('usage records of unrouted refusals and replays, and the reports', () => {
  let mock: MockProvider;
  let service: TestService;

  beforeAll(async () => {
    mock = await startMockProvider({ port: 0, record: false });
    service = await bootService(SERVICE, {
      REDIS_URL: process.env.TEST_REDIS_URL as string,
      OPENAI_BASE_URL: `${mock.url}/v1`,
      MISTRAL_BASE_URL: `${mock.url}/v1`,
      OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
    });
  });
  afterAll(async () => {
    await service.stop();
    await mock.close();
  });

  async function newOrg(): Promise<{ orgId: string; key: string; newKey: (scopes: string[]) => Promise<string> }> {
    const repos = service.runtime.repositories;
    const org = await repos.organizations.create({ name: `usage-${Math.random().toString(36).slice(2)}`, plan: 'enterprise' });
    const newKey = async (scopes: string[]) => {
      const plaintext = generateApiKey();
      await repos.apiKeys.create(asOrgId(org._id), { name: `key-${scopes.join('-')}`, key_hash: hashApiKey(plaintext), key_prefix: keyDisplayPrefix(plaintext), last_four: keyLastFour(plaintext), scopes });
      return plaintext;
    };
    return { orgId: org._id, key: await newKey(['gateway:write', 'admin:read', 'admin:write', 'billing:read']), newKey };
  }

  async function send(method: string, path: string, key: string, body?: string, headers: Record<string, string> = {}): Promise<{ status: number; id: string; headers: Headers; body: Json }> {
    const res = await fetch(`${service.urls.gateway}${path}`, {
      method,
      headers: { 'content-type': 'application/json', 'x-svc-api-key': key, 'x-provider-key': PROVIDER_KEY, ...headers },
      body,
    });
    const text = await res.text();
    return { status: res.status, id: res.headers.get('x-svc-request-id') as string, headers: res.headers, body: text ? (JSON.parse(text) as Json) : {} };
  }

  const get = async (url: string, headers: Record<string, string>): Promise<Json> => {
    const res = await fetch(url, { headers });
    expect(res.status).toBe(200);
    return (await res.json()) as Json;
  };
  const admin = (path: string, key: string) => get(`${service.urls.gateway}/gateway/admin${path}`, { 'x-svc-api-key': key });
  const costs = (key: string) => get(`${service.urls['org-api']}/api/v1/admin/metrics/cost-optimization?period=24h`, { 'x-api-key': key });
  const flush = () => service.apps[0].get(UsageRecorder).flush();

  it('names no provider the path made up: unknown routes and provider ids are filed under `unknown`, known ones under their id', async () => {
    const { key, newKey } = await newOrg();
    const target = await fetch(`${service.urls.gateway}/gateway/admin/provider-targets`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-svc-api-key': key },
      body: JSON.stringify({ name: 'Lab', provider_id: 'lab', base_url: `${mock.url}/v1` }),
    });
    expect(target.status).toBe(201);
    const readOnly = await newKey(['gateway:read']);
    const chat = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    const cases: [method: string, path: string, key: string, body: string | undefined, status: number, provider: string][] = [
      ['POST', '/v1/images/generations', key, JSON.stringify({ prompt: 'a cat' }), 404, 'unknown'],
      ['GET', '/v1/files/file-1', key, undefined, 404, 'unknown'],
      ['POST', '/v1/nosuch/chat/completions', key, chat, 404, 'unknown'],
      ['POST', '/v1/chat/completions', key, '{not json', 400, 'unknown'],
      // A provider the path names, in another case or by an alias, is recorded by its id.
      ['POST', '/v1/OpenAI/chat/completions', key, '{not json', 400, 'openai'],
      ['POST', '/v1/google/chat/completions', key, '{not json', 400, 'gemini'],
      ['POST', '/v1/openai/files', key, chat, 404, 'openai'],
      ['POST', '/v1/LAB/chat/completions', key, '{not json', 400, 'lab'],
      // A key refused for its scope: the organization's registry still names the provider.
      ['POST', '/v1/images/generations', readOnly, chat, 403, 'unknown'],
      ['POST', '/v1/Lab/chat/completions', readOnly, chat, 403, 'lab'],
      ['POST', '/v1/Mistral/chat/completions', readOnly, chat, 403, 'mistral'],
    ];
    const ids: string[] = [];
    for (const [method, path, caller, body, status] of cases) {
      const res = await send(method, path, caller, body);
      expect({ path, status: res.status }).toEqual({ path, status });
      ids.push(res.id);
    }
    await flush();
    for (const [i, [, path, , , status, provider]] of cases.entries()) {
      const record = await admin(`/usage/${ids[i]}`, key);
      expect({ path, status: record.status_code, provider: record.provider, model: record.model, cost: record.cost }).toEqual({ path, status, provider, model: 'unknown', cost: 0 });
    }

    // The reports group them under `unknown` beside the real providers; no `images`, `files` or `nosuch`.
    const report = await costs(key);
    expect(Object.keys(report.by_provider).sort()).toEqual(['gemini', 'lab', 'mistral', 'openai', 'unknown']);
    expect(report.by_provider.unknown).toEqual({ cost: 0, requests: 5, avg_cost_per_request: 0 });
    const billing = await admin('/billing/summary', key);
    expect((billing.by_provider as Json[]).map((row) => row.provider).sort()).toEqual(['gemini', 'lab', 'mistral', 'openai', 'unknown']);
    const listed = await admin('/usage?days=1', key);
    expect(new Set((listed.items as Json[]).map((item) => item.provider))).toEqual(new Set(['gemini', 'lab', 'mistral', 'openai', 'unknown']));
  });

  it('records an idempotent replay as served, not charged: counted as a request, left out of the average cost per request', async () => {
    const { key } = await newOrg();
    const body = JSON.stringify({ model: 'gpt-4o', max_tokens: 50, messages: [{ role: 'user', content: 'replay me '.repeat(300) }] });
    const idempotency = { 'idempotency-key': `replay-${Date.now()}` };
    const first = await send('POST', '/v1/chat/completions', key, body, idempotency);
    const second = await send('POST', '/v1/chat/completions', key, body, idempotency);
    const third = await send('POST', '/v1/chat/completions', key, body, idempotency);
    expect([first.status, second.status, third.status]).toEqual([200, 200, 200]);
    expect([second.headers.get('idempotent-replayed'), third.headers.get('idempotent-replayed')]).toEqual(['true', 'true']);
    await flush();

    const served = await admin(`/usage/${first.id}`, key);
    expect(served).toMatchObject({ provider: 'openai', usage_source: 'provider' });
    expect(served.cost).toBeGreaterThan(0);
    for (const replay of [second, third]) {
      expect(await admin(`/usage/${replay.id}`, key)).toMatchObject({ provider: 'openai', status_code: 200, usage_source: 'replay', cost: 0, input_tokens: 0, output_tokens: 0 });
    }

    // Cost metrics (6 decimals): three requests, one provider call; the average is that call's cost.
    const cost = Math.round(served.cost * 1e6) / 1e6;
    const report = await costs(key);
    expect(report.by_provider).toEqual({ openai: { cost, requests: 3, avg_cost_per_request: cost } });
    expect(report.total_cost).toBe(cost);
    // The gateway's reports count the replays as requests at no cost.
    const daily = await admin('/usage/daily?days=1', key);
    expect(daily).toMatchObject({ total_requests: 3, total_cost: served.cost });
    const billing = await admin('/billing/summary', key);
    expect(billing).toMatchObject({ requests: 3, total_cost: served.cost });
    const listed = await admin('/usage?days=1', key);
    expect((listed.items as Json[]).map((item) => item.usage_source).sort()).toEqual(['provider', 'replay', 'replay']);
  });
});
