import { asOrgId } from '@svc/domain';
import { GatewayHarness, Json, PROVIDER_KEY, startGateway } from './harness';

/**
 * `/v1/admin` on the gateway deployed alone (apps/gateway, no gateway admin beside it: in
 * Kubernetes the Ingress's `/v1/admin` rule sends those requests elsewhere). `admin` is one of the
 * gateway's route segments, never a provider: the catch-all answers 404 `not_found` in the gateway
 * format before authentication, even for an organization whose stored provider target took the
 * routing id `admin` before it was reserved, and nothing is sent upstream.
 */
describe('gateway alone: /v1/admin is never a provider', () => {
  let gw: GatewayHarness;

  beforeAll(async () => {
    // The target is the mock on 127.0.0.1: a private address.
    gw = await startGateway({ env: { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' } });
    await gw.repos.providerTargets.create(asOrgId(gw.orgId), { name: 'Admin lab', provider_id: 'admin', base_url: `${gw.mock.url}/v1`, models: ['admin-model'] });
    await gw.service.runtime.invalidation.publish('provider-target', gw.orgId);
  });
  afterAll(() => gw.stop());
  beforeEach(() => gw.mock.reset());

  const auth = () => ({ 'X-SVC-API-Key': gw.key, 'X-Provider-Key': PROVIDER_KEY });

  it.each([
    ['DELETE', '/v1/admin/webhooks'],
    ['PUT', '/v1/admin/api-keys'],
    ['GET', '/v1/admin/api-keys'],
    ['POST', '/v1/admin/webhooks/wh_1/deliveries'],
    ['GET', '/v1/admin/models/admin-model'],
    ['POST', '/v1/admin/chat/completions'],
    ['POST', '/v1/admin/embeddings'],
    ['GET', '/v1/admin'],
  ])('%s %s: 404 not_found naming the admin routes, with or without a key, nothing forwarded', async (method, path) => {
    for (const headers of [{}, auth()]) {
      const res = await fetch(`${gw.url}${path}`, {
        method,
        headers: { ...headers, 'content-type': 'application/json' },
        body: method === 'GET' ? undefined : JSON.stringify({ model: 'admin-model', messages: [{ role: 'user', content: 'hi' }], input: 'hi' }),
      });
      const body = (await res.json()) as Json;
      expect({ status: res.status, allow: res.headers.get('allow'), error: body.error }).toEqual({
        status: 404,
        allow: null,
        error: {
          message: expect.stringContaining(`No route ${method} ${path}. /v1/admin is the gateway admin's, never a provider`),
          type: 'not_found_error',
          code: 'not_found',
          param: null,
          remediation: expect.stringContaining('/v1/admin'),
        },
      });
      expect(res.headers.get('x-svc-request-id')).toMatch(/^gw_/);
    }
    expect(gw.mock.requests).toHaveLength(0);
  });

  it('a target stored under a reserved routing id is no provider: GET /v1/models does not list it', async () => {
    const models = await fetch(`${gw.url}/v1/models`, { headers: auth() });
    const list = (await models.json()) as Json;
    expect(models.status).toBe(200);
    const ids = (list.data as Json[]).map((entry) => String(entry.id));
    expect(ids).toContain('gpt-4o');
    expect(ids.filter((id) => id.includes('admin'))).toEqual([]);
  });
});
