import { asOrgId, generateApiKey, hashApiKey, keyDisplayPrefix, keyLastFour } from '@svc/domain';
import { MockProvider, startMockProvider } from '@svc/mock-provider';
import { bootService, checkAnswer, headerParameter, openApiOperations, TestService } from '@svc/testing';
import { SERVICE } from '../src/app.module';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- documents and bodies are asserted field by field
type Json = Record<string, any>;

/**
 * `npm start` runs the gateway surface with the global ValidationPipe on (for the admin routes).
 * Its /docs/json documents the proxy bodies, /metrics and the /v1/admin collections, and the
 * proxy bodies stay unvalidated by those schemas: the proxy routes are served before Nest's pipes.
 */
describe('npm start: the gateway surface OpenAPI document', () => {
  let service: TestService;
  let mock: MockProvider;
  let key: string;
  let adminKey: string;
  let orgId: string;

  beforeAll(async () => {
    mock = await startMockProvider({ port: 0 });
    service = await bootService(SERVICE, { OPENAI_BASE_URL: `${mock.url}/v1`, ANTHROPIC_BASE_URL: mock.url });
    const org = await service.runtime.repositories.organizations.create({ name: 'openapi-org', plan: 'enterprise' });
    key = generateApiKey();
    await service.runtime.repositories.apiKeys.create(asOrgId(org._id), { name: 'openapi', key_hash: hashApiKey(key), key_prefix: keyDisplayPrefix(key), last_four: keyLastFour(key), scopes: ['gateway:write'] });
    orgId = org._id;
    adminKey = generateApiKey();
    await service.runtime.repositories.apiKeys.create(asOrgId(org._id), { name: 'openapi-admin', key_hash: hashApiKey(adminKey), key_prefix: keyDisplayPrefix(adminKey), last_four: keyLastFour(adminKey), scopes: ['admin:write'] });
  });
  afterAll(async () => {
    await service.stop();
    await mock.close();
  });

  it('documents the proxy bodies, /metrics and the /v1/admin collections, and forwards proxy bodies as sent', async () => {
    const doc = (await (await fetch(`${service.urls.gateway}/docs/json`)).json()) as Json;
    const body = (path: string) => doc.paths[path].post.requestBody.content['application/json'].schema;
    expect(body('/v1/chat/completions')).toMatchObject({ required: ['model', 'messages'], additionalProperties: true, properties: { stream: { default: false } } });
    expect(body('/v1/messages')).toMatchObject({ required: ['model', 'max_tokens', 'messages'], additionalProperties: true });
    expect(body('/v1/embeddings')).toMatchObject({ required: ['model', 'input'], additionalProperties: true });
    expect(Object.keys(doc.paths['/metrics']?.get?.responses?.['200']?.content ?? {})).toEqual([expect.stringMatching(/^text\/plain/)]);
    for (const path of ['/v1/admin/api-keys', '/v1/admin/webhooks']) {
      const listed = doc.paths[path].get.responses['200'].content?.['application/json']?.schema;
      expect({ path, required: listed?.required, items: listed?.properties?.items?.items?.$ref }).toEqual({ path, required: ['items', 'total', 'offset', 'limit'], items: expect.stringMatching(/^#\/components\/schemas\//) });
    }

    const sent = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi', name: 'ada' }], vendor_extension: { nested: [1, 'two'] }, seed: 7 };
    const res = await fetch(`${service.urls.gateway}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-SVC-API-Key': key, 'X-Provider-Key': 'sk-mock-provider-key' },
      body: JSON.stringify(sent),
    });
    expect(res.status).toBe(200);
    expect(mock.requests.at(-1)?.body).toMatchObject(sent);
  });

  /** A call to the gateway surface with the admin key; `status` and `body` of the answer. */
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = { 'X-SVC-API-Key': adminKey }) => {
    const res = await fetch(`${service.urls.gateway}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };

  it('documents the runner answers (SPEC.md "Runner, session, command, event") and the rate-limit status, and real answers fit them', async () => {
    const doc = (await (await fetch(`${service.urls.gateway}/docs/json`)).json()) as Json;
    const runners = '/gateway/admin/runners';
    const checked: { route: string; documented: boolean; departures: string[] }[] = [];
    const check = async (method: string, template: string, path: string, body?: unknown, headers?: Record<string, string>) => {
      const res = await call(method, path, body, headers);
      checked.push(checkAnswer(doc, method, template, res.status, res.body));
      return res.body;
    };

    await check('GET', `${runners}/health`, `${runners}/health`, undefined, {});
    await check('GET', `${runners}/prerequisites`, `${runners}/prerequisites`);
    await check('POST', `${runners}/canary`, `${runners}/canary`);
    const runner = await check('POST', runners, runners, { provider_type: 'fake', tool_profile: 'locked', ttl_seconds: 600 });
    const session = await check('POST', `${runners}/{runner_id}/start`, `${runners}/${runner.runner_id}/start`, {});
    await check('GET', `${runners}/{runner_id}`, `${runners}/${runner.runner_id}`);
    await check('POST', `${runners}/{runner_id}/exec`, `${runners}/${runner.runner_id}/exec?session_id=${session.session_id}`, { argv: ['echo', 'hi'] });
    await check('POST', `${runners}/{runner_id}/stop`, `${runners}/${runner.runner_id}/stop?session_id=${session.session_id}`);
    const list = await check('GET', runners, runners);
    const events = await check('GET', `${runners}/{runner_id}/events`, `${runners}/${runner.runner_id}/events`);
    await check('POST', `${runners}/{runner_id}/terminate`, `${runners}/${runner.runner_id}/terminate`);
    await check('POST', `${runners}/byovm/register`, `${runners}/byovm/register`, { machine_id: 'openapi-machine-1', name: 'openapi-host' });
    // A minute's count, so the keys[] items are checked too.
    await call('GET', '/v1/models', undefined, { 'X-SVC-API-Key': key });
    const rates = await check('GET', '/gateway/admin/rate-limits/status', '/gateway/admin/rate-limits/status');

    expect(checked.filter((entry) => !entry.documented || entry.departures.length)).toEqual([]);
    expect(checked).toHaveLength(13);
    // Lists with items, so the items' schemas were walked.
    expect({ runners: list.runners.length > 0, events: events.events.length > 0, keys: rates.keys.length > 0 }).toEqual({ runners: true, events: true, keys: true });
  });

  it('lists the optional X-Org-ID header on every admin and runner route, which answer 403 org_mismatch for another organization', async () => {
    const doc = (await (await fetch(`${service.urls.gateway}/docs/json`)).json()) as Json;
    const admin = openApiOperations(doc).filter(({ path, operation }) => /^\/(gateway\/admin|v1\/admin)\//.test(path) && operation.security?.length);
    expect(admin.length).toBeGreaterThan(60);
    expect(admin.filter(({ operation }) => !headerParameter(operation, 'X-Org-ID')).map(({ method, path }) => `${method} ${path}`)).toEqual([]);
    expect(headerParameter(doc.paths['/gateway/admin/rate-limits/status'].get, 'X-Org-ID')).toMatchObject({ required: false, schema: { type: 'string' } });
    // The runner health takes no credentials.
    expect(headerParameter(doc.paths['/gateway/admin/runners/health'].get, 'X-Org-ID')).toBeUndefined();

    for (const path of ['/gateway/admin/rate-limits/status', '/gateway/admin/runners']) {
      const other = await call('GET', path, undefined, { 'X-SVC-API-Key': adminKey, 'X-Org-ID': 'org_someone_else' });
      expect({ path, status: other.status, code: other.body.error?.code }).toEqual({ path, status: 403, code: 'org_mismatch' });
      expect({ path, status: (await call('GET', path, undefined, { 'X-SVC-API-Key': adminKey, 'X-Org-ID': orgId })).status }).toEqual({ path, status: 200 });
    }
  });
});
