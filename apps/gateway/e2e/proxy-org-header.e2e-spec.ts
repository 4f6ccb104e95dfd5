import Anthropic from '@anthropic-ai/sdk';
import { anthropicFailure, createKey, CreatedKey, createOrg, expectGovernanceDenial, GatewayHarness, Json, postJson, PROVIDER_KEY, setPolicy, startGateway, TestOrg, usageOf } from './harness';

const chat = (content: string) => ({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }], max_tokens: 20 });
const message = (content: string) => ({ model: 'claude-haiku-4-5', max_tokens: 20, messages: [{ role: 'user' as const, content }] });

type Answer = { status: number; headers: Headers; body: Json };

/**
 * `X-Org-ID` on the `/v1` routes: optional (a key acts for its own organization), but one naming
 * another organization is refused as on the gateway admin (403 `permission_error` `org_mismatch`),
 * never served and billed as the key's organization.
 */
describe('a contradicting X-Org-ID on the /v1 routes', () => {
  let gw: GatewayHarness;
  let other: TestOrg;
  let key: CreatedKey;

  const get = async (path: string, headers: Record<string, string>): Promise<Answer> => {
    const res = await fetch(`${gw.url}${path}`, { headers });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Json };
  };

  /** A 403 org_mismatch in the gateway format, with the remediation and the key's organization named. */
  function expectMismatch(res: Answer): void {
    expect({ status: res.status, error: res.body.error }).toMatchObject({ status: 403, error: { type: 'permission_error', code: 'org_mismatch', param: null } });
    expect(res.body.error.message).toBe('X-Org-ID names an organization this key does not belong to');
    expect(res.body.error.remediation).toContain('Leave X-Org-ID out');
    expect(res.headers.get('x-svc-request-id')).toMatch(/^gw_/);
    expect(res.headers.get('x-gateway-org')).toBe(gw.orgId);
  }

  beforeAll(async () => {
    gw = await startGateway();
    other = await createOrg(gw, 'enterprise');
    key = await createKey(gw);
  });
  afterAll(() => gw.stop());
  beforeEach(() => gw.mock.reset());

  it.each([
    ['/v1/chat/completions', chat('chat'), 'X-SVC-API-Key'],
    ['/v1/openai/chat/completions', chat('provider-scoped chat'), 'X-SVC-API-Key'],
    ['/v1/embeddings', { model: 'text-embedding-3-small', input: 'embed me' }, 'X-SVC-API-Key'],
    ['/v1/ollama/responses', { model: 'llama3', input: 'the D catch-all' }, 'X-SVC-API-Key'],
    ['/v1/messages', message('messages'), 'x-api-key'],
    ['/v1/anthropic/v1/messages', message('SDK-style messages'), 'x-api-key'],
  ])('%s: 403 org_mismatch with the headers of every refusal, recorded under the key, nothing sent upstream', async (path, body, keyHeader) => {
    const res = await postJson(`${gw.url}${path}`, body, { [keyHeader]: key.key, 'X-Provider-Key': PROVIDER_KEY, 'X-Org-ID': other.orgId });
    expectMismatch(res);
    expectGovernanceDenial(res, { status: 403, type: 'permission_error', code: 'org_mismatch', orgId: gw.orgId });
    expect(gw.mock.requests).toHaveLength(0);
    const record = await usageOf(gw, res.headers.get('x-svc-request-id'));
    expect(record).toMatchObject({ org_id: gw.orgId, key_id: key.keyId, agent: key.name, status_code: 403, cost: 0, input_tokens: 0, output_tokens: 0, endpoint: path });
    // Nothing is filed under the organization the header named.
    expect(await usageOf(gw, res.headers.get('x-svc-request-id'), other.orgId)).toBeNull();
  });

  it('a B route refusal reaches the Anthropic SDK as a PermissionDeniedError like its other 403s', async () => {
    const sdk = new Anthropic({ apiKey: key.key, baseURL: gw.url, defaultHeaders: { 'X-Provider-Key': PROVIDER_KEY, 'X-Org-ID': other.orgId }, maxRetries: 0 });
    const err = await anthropicFailure(sdk.messages.create(message('through the SDK')));
    expect(err).toBeInstanceOf(Anthropic.PermissionDeniedError);
    expect(err).toMatchObject({ status: 403, type: 'permission_error', error: { error: { code: 'org_mismatch' } } });
    expect(gw.mock.requests).toHaveLength(0);
  });

  it('the key\'s own organization in X-Org-ID, an absent or an empty header are served', async () => {
    const variants: Record<string, string>[] = [{ 'X-Org-ID': gw.orgId }, {}, { 'X-Org-ID': ' ' }];
    for (const headers of variants) {
      const auth = { 'X-SVC-API-Key': key.key, 'X-Provider-Key': PROVIDER_KEY, ...headers };
      expect((await postJson(`${gw.url}/v1/chat/completions`, chat('own organization'), auth)).status).toBe(200);
      expect((await postJson(`${gw.url}/v1/messages`, message('own organization'), { 'x-api-key': key.key, 'X-Provider-Key': PROVIDER_KEY, ...headers })).status).toBe(200);
      expect((await get('/v1/models', auth)).status).toBe(200);
    }
    expect(gw.mock.requests).toHaveLength(6);
  });

  it('an unknown key with a contradicting X-Org-ID stays 401', async () => {
    const res = await postJson(`${gw.url}/v1/chat/completions`, chat('unknown key'), { 'X-SVC-API-Key': 'svc_sk_0000000000000000000000000000000000000000', 'X-Org-ID': other.orgId });
    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({ code: 'invalid_api_key', gateway_error_code: 'GW_AUTH_002' });
    expect(gw.mock.requests).toHaveLength(0);
  });

  it('the model lists and entries refuse it too', async () => {
    const mismatch = { 'X-SVC-API-Key': key.key, 'X-Org-ID': other.orgId };
    for (const path of ['/v1/models', '/v1/models/gpt-4o-mini', '/v1/openai/models', '/v1/openai/models/gpt-4o-mini']) {
      expectMismatch(await get(path, mismatch));
      expect((await get(path, { 'X-SVC-API-Key': key.key, 'X-Org-ID': gw.orgId })).status).toBe(200);
    }
    // The B provider's SDK-style list reads the key from x-api-key.
    expectMismatch(await get('/v1/anthropic/v1/models', { 'x-api-key': key.key, 'X-Org-ID': other.orgId }));
    expect((await get('/v1/anthropic/v1/models', { 'x-api-key': key.key })).status).toBe(200);
    expect(gw.mock.requests).toHaveLength(0);
  });

  it('approval polling refuses it, and answers the same poll with the matching header', async () => {
    const approver = await createOrg(gw, 'enterprise');
    await setPolicy(gw, approver.orgId, { hitl_cost_threshold: 0.0000001 });
    const pending = await postJson(`${gw.url}/v1/chat/completions`, chat('needs approval'), { 'X-SVC-API-Key': approver.key, 'X-Provider-Key': PROVIDER_KEY });
    expect(pending.status).toBe(202);
    const path = `/v1/approvals/${pending.body.approval_id}/status`;
    const refused = await get(path, { 'X-SVC-API-Key': approver.key, 'X-Org-ID': gw.orgId });
    expect(refused).toMatchObject({ status: 403, body: { error: { type: 'permission_error', code: 'org_mismatch' } } });
    expect(refused.headers.get('x-gateway-org')).toBe(approver.orgId);
    expect(JSON.stringify(refused.body)).not.toContain(pending.body.approval_id);
    const polled = await get(path, { 'X-SVC-API-Key': approver.key, 'X-Org-ID': approver.orgId });
    expect(polled).toMatchObject({ status: 200, body: { approval_id: pending.body.approval_id, status: 'pending', org_id: approver.orgId } });
    expect(gw.mock.requests).toHaveLength(0);
  });
});
