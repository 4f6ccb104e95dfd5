import { asOrgId, generateApiKey, hashApiKey, keyDisplayPrefix, keyLastFour } from '@svc/domain';
import { MockProvider, startMockProvider } from '@svc/mock-provider';
import { bootService, TestService } from '@svc/testing';
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

  beforeAll(async () => {
    mock = await startMockProvider({ port: 0 });
    service = await bootService(SERVICE, { OPENAI_BASE_URL: `${mock.url}/v1`, ANTHROPIC_BASE_URL: mock.url });
    const org = await service.runtime.repositories.organizations.create({ name: 'openapi-org', plan: 'enterprise' });
    key = generateApiKey();
    await service.runtime.repositories.apiKeys.create(asOrgId(org._id), { name: 'openapi', key_hash: hashApiKey(key), key_prefix: keyDisplayPrefix(key), last_four: keyLastFour(key), scopes: ['gateway:write'] });
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
});
