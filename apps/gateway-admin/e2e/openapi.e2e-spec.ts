import { bootService, TestService } from '@svc/testing';
import { SERVICE } from '../src/app.module';

/** Every SPEC.md "Gateway admin endpoints" row (plus the documented extensions), with the scope it needs. */
const ROUTES: [string, string, string][] = [
  ['get', '/gateway/admin/policies', 'admin:read'],
  ['post', '/gateway/admin/policies', 'admin:write'],
  ['delete', '/gateway/admin/policies/{org_id}', 'admin:write'],
  ['post', '/gateway/admin/policies/simulate', 'admin:read'],
  ['post', '/gateway/admin/policies/apply-preset', 'admin:write'],
  ['post', '/gateway/admin/keys/{key_id}/rotate', 'admin:write'],
  ['post', '/gateway/admin/secrets', 'admin:write'],
  ['get', '/gateway/admin/secrets', 'admin:read'],
  ['post', '/gateway/admin/secrets/rotate', 'admin:write'],
  ['delete', '/gateway/admin/secrets/{provider}', 'admin:write'],
  ['get', '/gateway/admin/usage', 'admin:read'],
  ['get', '/gateway/admin/usage/daily', 'admin:read'],
  ['get', '/gateway/admin/usage/{request_id}', 'admin:read'],
  ['get', '/gateway/admin/usage/export', 'billing:read'],
  ['get', '/gateway/admin/billing/summary', 'billing:read'],
  ['get', '/gateway/admin/billing/export', 'billing:read'],
  ['get', '/gateway/admin/latency', 'admin:read'],
  ['get', '/gateway/admin/approvals', 'admin:read'],
  ['get', '/gateway/admin/approvals/stats', 'admin:read'],
  ['get', '/gateway/admin/approvals/{id}', 'admin:read'],
  ['post', '/gateway/admin/approvals/{id}/approve', 'admin:write'],
  ['post', '/gateway/admin/approvals/{id}/reject', 'admin:write'],
  ['post', '/gateway/admin/provider-targets', 'admin:write'],
  ['get', '/gateway/admin/provider-targets', 'admin:read'],
  ['get', '/gateway/admin/provider-targets/{id}', 'admin:read'],
  ['patch', '/gateway/admin/provider-targets/{id}', 'admin:write'],
  ['delete', '/gateway/admin/provider-targets/{id}', 'admin:write'],
  ['post', '/gateway/admin/provider-targets/{id}/discover-models', 'admin:write'],
  ['get', '/gateway/admin/provider-targets/{id}/catalog', 'admin:read'],
  ['get', '/gateway/admin/discovery/catalog', 'admin:read'],
  ['get', '/gateway/admin/discovery/history', 'admin:read'],
  ['post', '/gateway/admin/model-aliases', 'admin:write'],
  ['get', '/gateway/admin/model-aliases', 'admin:read'],
  ['get', '/gateway/admin/model-aliases/{id}', 'admin:read'],
  ['patch', '/gateway/admin/model-aliases/{id}', 'admin:write'],
  ['delete', '/gateway/admin/model-aliases/{id}', 'admin:write'],
  ['post', '/gateway/admin/budgets/nodes', 'admin:write'],
  ['get', '/gateway/admin/budgets/nodes', 'admin:read'],
  ['get', '/gateway/admin/budgets/nodes/{id}', 'admin:read'],
  ['patch', '/gateway/admin/budgets/nodes/{id}', 'admin:write'],
  ['delete', '/gateway/admin/budgets/nodes/{id}', 'admin:write'],
  ['get', '/gateway/admin/rate-limits/status', 'admin:read'],
];

describe('gateway admin OpenAPI document', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await bootService(SERVICE);
  });
  afterAll(() => service.stop());

  it('documents every admin route with its scope first in the description', async () => {
    const doc = (await (await fetch(`${service.urls['gateway-admin']}/docs/json`)).json()) as { paths: Record<string, Record<string, { description?: string }>> };
    const documented = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/gateway/admin/'))
      .flatMap(([path, operations]) => Object.entries(operations).map(([method, op]) => [method, path, /^Scope: `([a-z:]+)`/.exec(op.description ?? '')?.[1] ?? 'none']));
    expect(documented.sort()).toEqual([...ROUTES].sort());
  });
});
