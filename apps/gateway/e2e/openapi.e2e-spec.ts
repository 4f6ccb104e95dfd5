import { asOrgId } from '@svc/domain';
import { checkAnswer, headerParameter, openApiOperations, resolveSchema, responseSchema } from '@svc/testing';
import { GatewayHarness, Json, postJson, PROVIDER_KEY, startGateway } from './harness';

/** Headers SPEC.md "Response headers on proxied responses" lists for every proxied answer. */
const SPEC_HEADERS = ['X-SVC-Request-ID', 'X-SVC-Cost', 'X-SVC-Daily-Cost', 'X-SVC-Daily-Budget', 'X-SVC-Governance-Time-Ms', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-Gateway-Org'];

const CHAT_ROUTES = ['/v1/chat/completions', '/v1/{provider}/chat/completions'];
const MESSAGES_ROUTES = ['/v1/messages', '/v1/{provider}/messages', '/v1/{provider}/v1/messages'];
const EMBEDDINGS_ROUTES = ['/v1/embeddings', '/v1/{provider}/embeddings'];

/**
 * The gateway's /docs/json describes the proxy bodies and answers of SPEC.md "Gateway proxy" and
 * the /metrics route, while the proxy keeps forwarding what it does not read (the schemas are not
 * validated: a body outside them still reaches the provider unchanged).
 */
describe('gateway OpenAPI document', () => {
  let gw: GatewayHarness;
  let doc: Json;
  const auth = () => ({ 'X-SVC-API-Key': gw.key, 'X-Provider-Key': PROVIDER_KEY });
  const post = (path: string) => doc.paths[path].post;
  const requestSchema = (path: string) => post(path).requestBody?.content?.['application/json']?.schema ?? {};
  const answer = (path: string, status: string) => post(path).responses[status] ?? {};

  beforeAll(async () => {
    gw = await startGateway({ plan: 'enterprise' });
    doc = (await (await fetch(`${gw.url}/docs/json`)).json()) as Json;
  });
  afterAll(() => gw.stop());
  beforeEach(() => gw.mock.reset());

  it('documents the proxy request bodies with SPEC.md\'s fields, open to the fields it forwards', () => {
    for (const path of CHAT_ROUTES) {
      const schema = requestSchema(path);
      expect({ path, required: schema.required, open: schema.additionalProperties }).toEqual({ path, required: ['model', 'messages'], open: true });
      expect(schema.properties).toMatchObject({
        model: { type: 'string' },
        messages: { type: 'array', items: { required: ['role'], properties: { role: { type: 'string' }, content: expect.any(Object) } } },
        stream: { type: 'boolean', default: false },
        temperature: { type: 'number', minimum: 0, maximum: 2 },
        max_tokens: { type: 'integer' },
      });
    }
    for (const path of MESSAGES_ROUTES) {
      const schema = requestSchema(path);
      expect({ path, required: schema.required, open: schema.additionalProperties }).toEqual({ path, required: ['model', 'max_tokens', 'messages'], open: true });
      expect(schema.properties).toMatchObject({ model: { type: 'string' }, max_tokens: { type: 'integer' }, messages: { type: 'array' }, stream: { type: 'boolean', default: false } });
      expect(schema.properties.system.oneOf).toContainEqual({ type: 'string' });
    }
    for (const path of EMBEDDINGS_ROUTES) {
      const schema = requestSchema(path);
      expect({ path, required: schema.required, open: schema.additionalProperties }).toEqual({ path, required: ['model', 'input'], open: true });
      expect(schema.properties.model).toEqual(expect.objectContaining({ type: 'string' }));
    }
  });

  it('documents the answers and headers, and a real answer has them; fields the schema does not name are forwarded unchanged', async () => {
    for (const path of [...CHAT_ROUTES, ...MESSAGES_ROUTES, ...EMBEDDINGS_ROUTES]) {
      expect({ path, headers: Object.keys(answer(path, '200').headers ?? {}) }).toEqual({ path, headers: expect.arrayContaining(SPEC_HEADERS) });
      expect({ path, hitl: Object.keys(answer(path, '202').headers ?? {}) }).toEqual({ path, hitl: expect.arrayContaining([...SPEC_HEADERS, 'Retry-After', 'X-SVC-Approval-ID']) });
    }
    expect(Object.keys(answer('/v1/chat/completions', '200').content)).toEqual(['application/json', 'text/event-stream']);

    // Fields SPEC.md never names: the schemas are documentation, not validation, and the body is forwarded as sent.
    const body = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], temperature: 1.5, vendor_extension: { keep: ['me'] } };
    const chat = await postJson(`${gw.url}/v1/chat/completions`, body, auth());
    expect(chat.status).toBe(200);
    expect(gw.mock.requests.at(-1)?.body).toMatchObject(body);
    const chatSchema = answer('/v1/chat/completions', '200').content['application/json'].schema;
    expect(Object.keys(chatSchema.properties).filter((field) => !(field in chat.body))).toEqual([]);
    expect(Object.keys(chatSchema.properties.choices.items.properties).filter((field) => !(field in chat.body.choices[0]))).toEqual([]);
    expect(Object.keys(chatSchema.properties.usage.properties).filter((field) => !(field in chat.body.usage))).toEqual([]);
    expect(SPEC_HEADERS.filter((name) => chat.headers.get(name) === null)).toEqual([]);

    const message = await postJson(`${gw.url}/v1/messages`, { model: 'claude-sonnet-4-5', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }], top_k: 3 }, auth());
    expect(message.status).toBe(200);
    const messageSchema = answer('/v1/messages', '200').content['application/json'].schema;
    expect(Object.keys(messageSchema.properties).filter((field) => !(field in message.body))).toEqual([]);
    expect(Object.keys(messageSchema.properties.usage.properties).filter((field) => !(field in message.body.usage))).toEqual([]);
  });

  it('documents the HITL 202 body (SPEC.md "HITL 202 body") as the gateway answers it', async () => {
    const schema = answer('/v1/chat/completions', '202').content['application/json'].schema;
    expect(schema.required).toEqual(['status', 'approval_id', 'retry_after_seconds', 'message', 'estimated_cost', 'model']);
    expect(schema.properties).toMatchObject({ status: { enum: ['pending_approval'] }, retry_after_seconds: { type: 'integer' }, estimated_cost: { type: 'number' }, model: { type: 'string' } });

    await gw.repos.policies.replace(asOrgId(gw.orgId), { hitl_cost_threshold: 0.0000001 });
    await gw.service.runtime.invalidation.publish('policy', gw.orgId);
    try {
      const pending = await postJson(`${gw.url}/v1/chat/completions`, { model: 'gpt-4o', messages: [{ role: 'user', content: 'an expensive request' }] }, auth());
      expect(pending.status).toBe(202);
      expect(Object.keys(pending.body).sort()).toEqual([...schema.required].sort());
      expect(pending.headers.get('x-svc-approval-id')).toBe(pending.body.approval_id);
      expect(Number(pending.headers.get('retry-after'))).toBe(pending.body.retry_after_seconds);
    } finally {
      await gw.repos.policies.delete(asOrgId(gw.orgId));
      await gw.service.runtime.invalidation.publish('policy', gw.orgId);
    }
  });

  it('documents GET /metrics (SPEC.md "Health and service endpoints") as the Prometheus text it serves', async () => {
    const operation = doc.paths['/metrics']?.get;
    expect(operation?.summary).toBe('Prometheus exposition');
    const [contentType] = Object.keys(operation.responses['200'].content);
    const res = await fetch(`${gw.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')?.split(';')[0]).toBe(contentType.split(';')[0]);
    expect(await res.text()).toContain('# TYPE');
  });

  it('documents the health, service, model and approval answers (SPEC.md "Health and service endpoints", "Approval polling"), and real answers fit them', async () => {
    const health = resolveSchema(doc, responseSchema(doc.paths['/v1/health'].get)) as Json;
    expect(health.required).toEqual(['status', 'service', 'version', 'timestamp', 'redis', 'mongodb', 'degraded']);
    expect(health.properties.mongodb.enum).toEqual(['connected', 'disconnected', 'not_configured']);
    expect(resolveSchema(doc, responseSchema(doc.paths['/v1/providers/health'].get))?.properties.status.enum).toEqual(['healthy', 'degraded', 'unhealthy']);
    const detailed = doc.paths['/v1/health/detailed'].get;
    expect(responseSchema(detailed, 503)).toEqual(responseSchema(detailed, 200));
    expect(responseSchema(detailed, 200)?.required).toEqual(['overall_status', 'timestamp', 'uptime_seconds', 'components', 'providers', 'metrics', 'cost', 'alerts', 'rate_limits']);

    // A call first, so the detailed health has a breaker with a success, counters and a busiest organization.
    expect((await postJson(`${gw.url}/v1/chat/completions`, { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }, auth())).status).toBe(200);
    const key = { 'X-SVC-API-Key': gw.key };
    const calls: [string, string][] = [
      ['/health', '/health'],
      ['/v1/health', '/v1/health'],
      ['/v1/providers/health', '/v1/providers/health'],
      ['/v1/health/detailed', '/v1/health/detailed'],
      ['/', '/'],
      ['/v1/models', '/v1/models'],
      ['/v1/models/{model}', '/v1/models/gpt-4o'],
      ['/v1/{provider}/models', '/v1/openai/models'],
      ['/v1/{provider}/models/{model}', '/v1/openai/models/gpt-4o'],
      ['/v1/{provider}/v1/models', '/v1/anthropic/v1/models'],
      ['/v1/{provider}/v1/models', '/v1/openai/v1/models'],
      ['/v1/{provider}/v1/models/{model}', '/v1/anthropic/v1/models/claude-sonnet-4-5'],
      ['/v1/{provider}/v1/models/{model}', '/v1/openai/v1/models/gpt-4o'],
    ];
    for (const [template, path] of calls) {
      const res = await fetch(`${gw.url}${path}`, { headers: key });
      expect(checkAnswer(doc, 'get', template, res.status, await res.json())).toEqual({ route: `get ${template} 200`, documented: true, departures: [] });
    }

    await gw.repos.policies.replace(asOrgId(gw.orgId), { hitl_cost_threshold: 0.0000001 });
    await gw.service.runtime.invalidation.publish('policy', gw.orgId);
    try {
      const pending = await postJson(`${gw.url}/v1/chat/completions`, { model: 'gpt-4o', messages: [{ role: 'user', content: 'poll me' }] }, auth());
      expect(pending.status).toBe(202);
      const status = `${gw.url}/v1/approvals/${pending.body.approval_id}/status`;
      const before = await fetch(status, { headers: key });
      expect(checkAnswer(doc, 'get', '/v1/approvals/{approval_id}/status', before.status, await before.json())).toEqual({ route: 'get /v1/approvals/{approval_id}/status 200', documented: true, departures: [] });
      await gw.repos.approvals.approve(asOrgId(gw.orgId), pending.body.approval_id, 'reviewer@example.com');
      const after = await fetch(status, { headers: key });
      const approved = await after.json();
      expect(approved).toMatchObject({ status: 'approved', approved_by: 'reviewer@example.com', approved_at: expect.any(String) });
      expect(checkAnswer(doc, 'get', '/v1/approvals/{approval_id}/status', after.status, approved)).toEqual({ route: 'get /v1/approvals/{approval_id}/status 200', documented: true, departures: [] });
    } finally {
      await gw.repos.policies.delete(asOrgId(gw.orgId));
      await gw.service.runtime.invalidation.publish('policy', gw.orgId);
    }
  });

  it('lists the optional X-Org-ID header on every /v1 key route, as the gateway reads it (403 org_mismatch for another organization)', async () => {
    const keyRoutes = openApiOperations(doc).filter(({ path, operation }) => path.startsWith('/v1/') && operation.security?.length);
    expect(keyRoutes.length).toBeGreaterThanOrEqual(14);
    expect(keyRoutes.filter(({ operation }) => !headerParameter(operation, 'X-Org-ID')).map(({ method, path }) => `${method} ${path}`)).toEqual([]);
    expect(headerParameter(doc.paths['/v1/models'].get, 'X-Org-ID')).toMatchObject({ required: false, schema: { type: 'string' } });
    // The health routes take no credentials, so no organization either.
    expect(headerParameter(doc.paths['/v1/health'].get, 'X-Org-ID')).toBeUndefined();

    const other = await fetch(`${gw.url}/v1/models`, { headers: { 'X-SVC-API-Key': gw.key, 'X-Org-ID': 'org_someone_else' } });
    expect(other.status).toBe(403);
    expect(((await other.json()) as Json).error.code).toBe('org_mismatch');
    const own = await fetch(`${gw.url}/v1/models`, { headers: { 'X-SVC-API-Key': gw.key, 'X-Org-ID': gw.orgId } });
    expect(own.status).toBe(200);
  });
});
