import { asOrgId } from '@svc/domain';
import { createOrg, GatewayHarness, postJson, PROVIDER_KEY, startGateway, TestOrg } from './harness';

/**
 * Organizations' own provider targets: two organizations may both call theirs `lab`. Each has its
 * own breaker (one's failing server does not refuse the other's requests), and neither appears in
 * the public health views.
 */
describe('provider target breakers are per organization', () => {
  let gw: GatewayHarness;
  let other: TestOrg;
  const chat = { model: 'lab/lab-model', messages: [{ role: 'user', content: 'breaker' }] };

  beforeAll(async () => {
    gw = await startGateway({ env: { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true', CIRCUIT_BREAKER_FAILURE_THRESHOLD: '2', CIRCUIT_BREAKER_RECOVERY_SECONDS: '300' } });
    other = await createOrg(gw, 'enterprise');
    for (const orgId of [gw.orgId, other.orgId]) {
      await gw.repos.providerTargets.create(asOrgId(orgId), { name: `Lab of ${orgId}`, provider_id: 'lab', base_url: `${gw.mock.url}/v1`, models: ['lab-model'] });
      await gw.service.runtime.invalidation.publish('provider-target', orgId);
    }
  });
  afterAll(() => gw.stop());

  it("opens one organization's breaker for its target, and leaves the other's closed and unlisted", async () => {
    const ours = { 'X-SVC-API-Key': gw.key, 'X-Provider-Key': PROVIDER_KEY };
    const theirs = { 'X-SVC-API-Key': other.key, 'X-Provider-Key': PROVIDER_KEY };
    gw.mock.setBehavior({ match: { format: 'openai' }, fail: { status: 503, times: 2 } });
    for (let i = 0; i < 2; i++) expect((await postJson(`${gw.url}/v1/chat/completions`, chat, ours)).status).toBe(503);
    gw.mock.reset();
    const open = await postJson(`${gw.url}/v1/chat/completions`, chat, ours);
    expect(open.status).toBe(503);
    expect(open.body.error.code).toBe('circuit_breaker_open');
    expect(gw.mock.requests).toHaveLength(0);
    // The other organization's target of the same id is served.
    expect((await postJson(`${gw.url}/v1/chat/completions`, chat, theirs)).status).toBe(200);
    // The public health views list the built-in providers only.
    for (const path of ['/v1/providers/health', '/v1/health/detailed']) {
      const res = await fetch(`${gw.url}${path}`);
      const text = await res.text();
      expect({ path, lab: text.includes('"lab"') }).toEqual({ path, lab: false });
    }
    expect(((await (await fetch(`${gw.url}/v1/health`)).json()) as { status: string }).status).not.toBe('unhealthy');
  });
});
