import { createKey, CreatedKey, expectGovernanceHeaders, GatewayHarness, Json, metricSum, postJson, PROVIDER_KEY, rotateKey, startGateway, usageOf } from './harness';

const chat = (content: string) => ({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }], max_tokens: 20 });

type Answer = { status: number; headers: Headers; body: Json };

/**
 * Gateway keys refused on the proxy routes: what the client sees, and that a refusal of an
 * identified key is metered under its organization while one without a tenant is only counted.
 */
describe('gateway key refusals, rotation grace and the IP allowlist', () => {
  let gw: GatewayHarness;
  const send = (key: string | null, content: string, headers: Record<string, string> = {}, harness = gw): Promise<Answer> =>
    postJson(`${harness.url}/v1/chat/completions`, chat(content), { ...(key ? { 'X-SVC-API-Key': key } : {}), 'X-Provider-Key': PROVIDER_KEY, ...headers });

  /** The refused request's usage record: under the key's organization and key, status as answered, nothing charged. */
  async function expectRefusalRecord(res: Answer, key: CreatedKey, status: number): Promise<void> {
    const requestId = res.headers.get('x-svc-request-id');
    expect(requestId).toMatch(/^gw_/);
    const record = await usageOf(gw, requestId);
    // The agent is the key's name (no X-SVC-Agent sent), as for a served request.
    expect(record).toMatchObject({ org_id: gw.orgId, key_id: key.keyId, agent: key.name, status_code: status, cost: 0, input_tokens: 0, output_tokens: 0, endpoint: '/v1/chat/completions' });
    expectGovernanceHeaders(res.headers, gw.orgId);
  }

  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(() => gw.stop());
  beforeEach(() => gw.mock.reset());

  it('a request without a key or with an unknown key leaves no usage record, but is counted in /metrics', async () => {
    const since = new Date();
    const before = await metricSum(gw, 'svc_gateway_requests_total', { status: '401' });
    const missing = await send(null, 'no key');
    const unknown = await send('svc_sk_0000000000000000000000000000000000000000', 'unknown key');
    expect([missing.status, unknown.status]).toEqual([401, 401]);
    expect([missing.body.error.gateway_error_code, unknown.body.error.gateway_error_code]).toEqual(['GW_AUTH_001', 'GW_AUTH_002']);
    expect(await metricSum(gw, 'svc_gateway_requests_total', { status: '401' })).toBe(before + 2);
    await usageOf(gw, null);
    expect(await gw.repos.usage.listOrgIdsWithUsageSince(since)).toEqual([]);
    expect(gw.mock.requests).toHaveLength(0);
  });

  it('403 insufficient_scope for a key without gateway:write, recorded under its organization', async () => {
    const readOnly = await createKey(gw, { scopes: ['gateway:read'] });
    const res = await send(readOnly.key, 'read-only key');
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ type: 'permission_error', code: 'insufficient_scope' });
    expect(res.body.error.message).toContain('gateway:write');
    expect(res.headers.get('x-gateway-org')).toBe(gw.orgId);
    await expectRefusalRecord(res, readOnly, 403);
    expect(gw.mock.requests).toHaveLength(0);
  });

  it('403 GW_AUTH_004 ip_not_allowed for a client outside the allowlist, recorded; inside it passes', async () => {
    const elsewhere = await createKey(gw, { ipAllowlist: ['198.51.100.0/24', '2001:db8::/32'] });
    const res = await send(elsewhere.key, 'from the wrong address');
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ type: 'permission_error', code: 'ip_not_allowed', gateway_error_code: 'GW_AUTH_004' });
    expect(res.body.error.message).toContain('127.0.0.1');
    await expectRefusalRecord(res, elsewhere, 403);
    const local = await createKey(gw, { ipAllowlist: ['127.0.0.0/8'] });
    expect((await send(local.key, 'from the loopback range')).status).toBe(200);
    // SPEC.md: X-Gateway-Org on every request; the organization is known (the record is filed under it).
    expect(res.headers.get('x-gateway-org')).toBe(gw.orgId);
  });

  it('after rotation with grace the old key answers 200 with X-SVC-Key-Deprecated and the hours left', async () => {
    const old = await createKey(gw);
    expect((await send(old.key, 'before rotation')).headers.get('x-svc-key-deprecated')).toBeNull();
    const replacement = await rotateKey(gw, old, 24);
    const res = await send(old.key, 'during the grace period');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-svc-key-deprecated')).toBe('true');
    const hours = Number(res.headers.get('x-svc-grace-remaining-hours'));
    expect(hours).toBeGreaterThan(23.9);
    expect(hours).toBeLessThanOrEqual(24);
    const fresh = await send(replacement.key, 'with the replacement');
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get('x-svc-key-deprecated')).toBeNull();
    expect(fresh.headers.get('x-svc-grace-remaining-hours')).toBeNull();
  });

  it('with grace 0 the old key is 401 key_rotated naming the replacement key id, recorded under its organization', async () => {
    const old = await createKey(gw);
    const replacement = await rotateKey(gw, old, 0);
    const res = await send(old.key, 'after the grace period');
    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({ type: 'authentication_error', code: 'key_rotated', gateway_error_code: 'GW_AUTH_003' });
    expect(res.body.error.message).toContain(replacement.keyId);
    await expectRefusalRecord(res, old, 401);
    expect((await send(replacement.key, 'the replacement works')).status).toBe(200);
    expect(res.headers.get('x-gateway-org')).toBe(gw.orgId);
  });

  it('GET /v1/models and approval polling name the organization of an identified key they refuse, as the proxy routes do', async () => {
    const elsewhere = await createKey(gw, { ipAllowlist: ['198.51.100.0/24'] });
    const rotated = await createKey(gw);
    await rotateKey(gw, rotated, 0);
    for (const path of ['/v1/models', '/v1/approvals/apr_unknown/status']) {
      const outside = await fetch(`${gw.url}${path}`, { headers: { 'X-SVC-API-Key': elsewhere.key } });
      const old = await fetch(`${gw.url}${path}`, { headers: { 'X-SVC-API-Key': rotated.key } });
      expect([outside.status, old.status]).toEqual([403, 401]);
      expect([((await outside.json()) as Json).error.gateway_error_code, ((await old.json()) as Json).error.gateway_error_code]).toEqual(['GW_AUTH_004', 'GW_AUTH_003']);
      expect([outside.headers.get('x-gateway-org'), old.headers.get('x-gateway-org')]).toEqual([gw.orgId, gw.orgId]);
    }
  });

  describe('X-Forwarded-For', () => {
    let trusted: GatewayHarness;
    const forwarded = { 'X-Forwarded-For': '203.0.113.7' };

    beforeAll(async () => {
      trusted = await startGateway({ env: { TRUSTED_PROXIES: '127.0.0.1' } });
    });
    afterAll(() => trusted.stop());

    it('from a trusted proxy, the forwarded address is the client for the allowlist', async () => {
      const remote = await createKey(trusted, { ipAllowlist: ['203.0.113.7'] });
      const local = await createKey(trusted, { ipAllowlist: ['127.0.0.1'] });
      expect((await send(remote.key, 'forwarded', forwarded, trusted)).status).toBe(200);
      // A chain: the right-most address that is not a trusted proxy is the client; the rest is ignored.
      expect((await send(remote.key, 'chain', { 'X-Forwarded-For': '198.51.100.1, 203.0.113.7' }, trusted)).status).toBe(200);
      const refused = await send(local.key, 'forwarded to a local-only key', forwarded, trusted);
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({ code: 'ip_not_allowed', gateway_error_code: 'GW_AUTH_004' });
      expect(refused.body.error.message).toContain('203.0.113.7');
      // Without the header the proxy itself is the client.
      expect((await send(local.key, 'direct', {}, trusted)).status).toBe(200);
      expect((await send(remote.key, 'direct', {}, trusted)).status).toBe(403);
      // The Nest-routed model list applies the same rule.
      expect((await fetch(`${trusted.url}/v1/models`, { headers: { 'X-SVC-API-Key': remote.key, ...forwarded } })).status).toBe(200);
      expect((await fetch(`${trusted.url}/v1/models`, { headers: { 'X-SVC-API-Key': local.key, ...forwarded } })).status).toBe(403);
    });

    it('without TRUSTED_PROXIES the header is ignored: the socket address is the client', async () => {
      const remote = await createKey(gw, { ipAllowlist: ['203.0.113.7'] });
      const local = await createKey(gw, { ipAllowlist: ['127.0.0.1'] });
      const spoofed = await send(remote.key, 'spoofed', forwarded);
      expect(spoofed.status).toBe(403);
      expect(spoofed.body.error.message).toContain('127.0.0.1');
      expect((await send(local.key, 'header ignored', forwarded)).status).toBe(200);
    });
  });
});
