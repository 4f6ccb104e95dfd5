import { asOrgId } from '@svc/domain';
import { createEvent, EVENT_SOURCES } from '@svc/events';
import { PII_ACTIONS, POLICY_INPUT_FIELDS } from '@svc/governance';
import { requestSchema, responseSchema, resolveSchema, schemaDepartures } from '@svc/testing';
import { Json, OrgApi, Session, usageRecord } from './org-api.helpers';

type Schema = Json;

describe('organization API OpenAPI document', () => {
  let api: OrgApi;
  let owner: Session;
  let doc: Json;

  beforeAll(async () => {
    api = await OrgApi.boot();
    owner = await api.loginOwner();
    doc = (await api.call('GET', '/docs/json')).body;
  });
  afterAll(() => api.stop());

  const operations = () =>
    Object.entries(doc.paths as Record<string, Record<string, Json>>).flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ path, method, operation })));

  it('gives every operation that answers a JSON body a response schema', () => {
    const answered = operations().filter(({ operation }) => Object.keys(operation.responses ?? {}).some((status) => /^2\d\d$/.test(status) && status !== '204'));
    expect(answered.length).toBeGreaterThan(30);
    const missing = answered.filter(({ operation }) => {
      const schema = resolveSchema(doc, responseSchema(operation));
      return !schema?.properties;
    });
    expect(missing.map(({ method, path }) => `${method} ${path}`)).toEqual([]);
  });

  it('documents the cost-optimization report field by field (SPEC.md "Costs and budgets")', () => {
    const report = resolveSchema(doc, responseSchema(doc.paths['/api/v1/admin/metrics/cost-optimization'].get)) as Schema;
    expect(report.required).toEqual(expect.arrayContaining(['period', 'total_cost', 'by_provider', 'by_agent', 'time_series', 'projections']));
    expect(report.properties.total_cost.type).toBe('number');
    expect(Object.keys(resolveSchema(doc, report.properties.by_provider.additionalProperties)?.properties)).toEqual(['cost', 'requests', 'avg_cost_per_request']);
    expect(Object.keys(resolveSchema(doc, report.properties.by_agent.additionalProperties)?.properties)).toEqual(['cost', 'executions', 'avg_latency_ms']);
    expect(Object.keys(resolveSchema(doc, report.properties.time_series.items)?.properties)).toEqual(['date', 'cost', 'requests']);
    const projections = resolveSchema(doc, report.properties.projections) as Schema;
    expect(projections.properties).toMatchObject({ monthly_estimate: { type: 'number' }, trend: { enum: ['increasing', 'stable', 'decreasing'] }, budget_utilization: { type: 'number' } });
  });

  it("documents PATCH /admin/gateway/policy/{org_id}'s body field by field, with the gateway admin's class (PolicyFieldsDto)", () => {
    const declared = requestSchema(doc.paths['/api/v1/admin/gateway/policy/{org_id}'].patch);
    expect(declared?.$ref).toBe('#/components/schemas/PolicyFieldsDto');
    const body = resolveSchema(doc, declared) as Schema;
    // Every field the validation takes, none required (only the fields sent change).
    expect(Object.keys(body.properties).sort()).toEqual([...POLICY_INPUT_FIELDS].sort());
    expect(body.required ?? []).toEqual([]);
    expect(body.properties).toMatchObject({
      rpm_limit: { type: 'integer', minimum: 1 },
      daily_budget: { type: 'number', minimum: 0 },
      pii_action: { enum: [...PII_ACTIONS] },
      allowed_models: { type: 'array', items: { type: 'string' } },
      max_reasoning_tokens: { type: 'integer', nullable: true },
      org_id: { type: 'string' },
    });
    const sent = { rpm_limit: 120, daily_budget: 12.5, pii_action: 'flag', allowed_models: ['gpt-4o'], max_reasoning_tokens: null, budget_warning_thresholds: [50, 90] };
    expect(schemaDepartures(doc, declared, sent, 'request')).toEqual([]);
  });

  it('lists the optional X-Org-ID header on every route that reads it (SPEC.md "Organization API tokens")', () => {
    const authenticated = operations().filter(({ operation }) => operation.security?.length);
    expect(authenticated.length).toBeGreaterThan(30);
    const headerOf = (operation: Json) => (operation.parameters ?? []).find((parameter: Json) => parameter.in === 'header' && parameter.name === 'X-Org-ID');
    expect(authenticated.filter(({ operation }) => !headerOf(operation)).map(({ method, path }) => `${method} ${path}`)).toEqual([]);
    expect(headerOf(doc.paths['/api/v1/admin/webhooks'].get)).toMatchObject({ required: false, schema: { type: 'string' } });
    // Login takes no credentials, so no organization context either.
    expect(headerOf(doc.paths['/api/v1/auth/login'].post)).toBeUndefined();
  });

  it('answers every documented route with a body its schema describes', async () => {
    const org = asOrgId(owner.orgId);
    await api.createKey(owner, ['admin:read']);
    await api.repos.usage.recordBatch([
      usageRecord(owner.orgId, { provider: 'openai', agent: 'support-bot', cost: 0.3, latency_ms: 200, created_at: new Date(Date.now() - 60_000) }),
      usageRecord(owner.orgId, { provider: 'anthropic', agent: null, cost: 0.1, latency_ms: 100, status_code: 502, created_at: new Date(Date.now() - 120_000) }),
    ]);
    const webhook = (await api.call('POST', '/api/v1/admin/webhooks', { token: owner.token, body: { url: 'https://8.8.8.8/hooks/openapi', events: ['budget.exceeded'] } })).body;
    const event = createEvent('budget.exceeded', owner.orgId, { blocked_by: 'daily_budget', daily_spent: 10, daily_budget: 10, model: 'gpt-4o', estimated_cost: 0.1, timestamp: new Date().toISOString() }, EVENT_SOURCES.gateway);
    const dead = await api.repos.webhookDeliveries.create(org, { webhook_id: webhook.id, event_id: event.id, event_type: event.type, url: webhook.url, payload: JSON.stringify(event) });
    await api.repos.webhookDeliveries.recordAttempt(org, dead._id, { status: 'failed', status_code: 500, latency_ms: 42, error: 'HTTP 500', retry_count: 5 });
    await api.repos.webhookDeliveries.markDeadLetter(org, dead._id);

    const calls: [string, string, string, unknown?][] = [
      ['get', '/health', '/health'],
      ['get', '/api/v1/platform/api-keys', '/api/v1/platform/api-keys'],
      ['get', '/api/v1/admin/webhooks', '/api/v1/admin/webhooks'],
      ['get', '/api/v1/admin/webhooks/{id}/deliveries', `/api/v1/admin/webhooks/${webhook.id}/deliveries`],
      ['post', '/api/v1/admin/webhooks/{id}/deliveries/{delivery_id}/retry', `/api/v1/admin/webhooks/${webhook.id}/deliveries/${dead._id}/retry`],
      ['post', '/api/v1/webhooks/deliver', '/api/v1/webhooks/deliver', { webhook_id: webhook.id }],
      ['put', '/api/v1/admin/integrations/chat', '/api/v1/admin/integrations/chat', { url: 'https://8.8.8.8/services/T000/B000/XXXX' }],
      ['get', '/api/v1/admin/integrations/chat', '/api/v1/admin/integrations/chat'],
      ['get', '/api/v1/admin/metrics/cost-optimization', '/api/v1/admin/metrics/cost-optimization'],
      ['get', '/api/v1/agents/health', '/api/v1/agents/health'],
      ['get', '/api/v1/agents/{agent_name}/health', '/api/v1/agents/support-bot/health'],
      ['get', '/api/v1/autopilot/templates', '/api/v1/autopilot/templates'],
      ['get', '/api/v1/autopilot/templates/{template_id}', '/api/v1/autopilot/templates/cost-guardrails'],
      ['get', '/api/v1/organizations/{org_id}', `/api/v1/organizations/${owner.orgId}`],
      ['patch', '/api/v1/organizations/{org_id}', `/api/v1/organizations/${owner.orgId}`, { name: 'Renamed Org' }],
      ['post', '/api/v1/organizations/{org_id}/members', `/api/v1/organizations/${owner.orgId}/members`, { email: 'openapi-member@example.com', password: 'member-password-123', role: 'Member' }],
      ['get', '/api/v1/organizations/{org_id}/members', `/api/v1/organizations/${owner.orgId}/members`],
      ['patch', '/api/v1/admin/gateway/policy/{org_id}', `/api/v1/admin/gateway/policy/${owner.orgId}`, { rpm_limit: 120 }],
    ];
    for (const [method, template, path, body] of calls) {
      const operation = doc.paths[template]?.[method];
      const schema = operation && responseSchema(operation);
      const res = await api.call(method.toUpperCase(), path, { token: owner.token, body });
      const answer = res.body as Json;
      // A collection has at least one item here, so the items' schema is checked too.
      const empty = Array.isArray(answer.items) && answer.items.length === 0;
      expect({ route: `${method} ${template}`, documented: Boolean(schema), status: res.status, empty, departures: schemaDepartures(doc, schema, answer, 'body') }).toEqual({
        route: `${method} ${template}`,
        documented: true,
        status: Number(Object.keys(operation.responses).find((status) => /^2\d\d$/.test(status))),
        empty: false,
        departures: [],
      });
    }
  });
});
