import { asOrgId, hashPassword } from '@svc/domain';
import { Json, PROVIDER_KEY, Reply, Standalone } from './standalone.helpers';

const OWNER = { email: 'tenant-owner@example.com', password: 'tenant-owner-password-1' };
const RUNNERS = '/gateway/admin/runners';
const chat = (content: string) => ({ model: 'gpt-4o-mini', max_tokens: 10, messages: [{ role: 'user', content }] });

/**
 * Tenant isolation on the surfaces the per-area specs do not cross (docs/decisions-services.md "Tenant
 * isolation"): the runner control plane, `/v1` approval polling, Idempotency-Key, runner proofs
 * and agent health. Organization B holds A's real ids and must get exactly the answer an unknown
 * id gets, with nothing of A's changed; the other routes are guarded by each area's spec
 * (gateway-admin route-matrix, org-api organization/webhooks/api-keys/costs).
 */
describe('tenant isolation across the whole service', () => {
  let s: Standalone;
  /** Organization A (the bootstrap Owner's) and B, each with an admin + proxy gateway key. */
  let a: { orgId: string; key: string };
  let b: { orgId: string; key: string; token: string };

  const newKey = async (bearer: string) => {
    const res = await s.call('org-api', 'POST', '/api/v1/platform/api-keys', { bearer, body: { name: 'ops', scopes: ['admin:write', 'gateway:write', 'billing:read'] } });
    expect(res.status).toBe(201);
    return res.body.key as string;
  };
  /** A call to the gateway surface with a gateway key (and a provider key) plus extra headers. */
  const gw = async (method: string, path: string, key: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> => {
    const sent = { 'X-SVC-API-Key': key, 'X-Provider-Key': PROVIDER_KEY, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers };
    const res = await fetch(`${s.service.urls.gateway}${path}`, { method, headers: sent, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as Json, headers: res.headers };
  };
  /** An answer with the id it names replaced, to compare a foreign id's answer with an unknown one's. */
  const answer = (reply: Reply, id: string) => ({ status: reply.status, body: JSON.parse(JSON.stringify(reply.body).split(id).join('<id>')) as Json });

  beforeAll(async () => {
    s = await Standalone.boot(OWNER, 'enterprise');
    a = { orgId: s.orgId, key: await newKey(s.token) };
    const org = await s.service.runtime.repositories.organizations.create({ name: 'Tenant B', plan: 'enterprise' });
    const email = 'owner-b@example.com';
    await s.service.runtime.repositories.users.create(asOrgId(org._id), { email, role: 'Owner', password_hash: await hashPassword('owner-b-password-1') });
    const login = await s.call('org-api', 'POST', '/api/v1/auth/login', { bearer: '', body: { email, password: 'owner-b-password-1' } });
    expect(login.status).toBe(200);
    b = { orgId: org._id, token: login.body.access_token, key: await newKey(login.body.access_token) };
  });
  afterAll(() => s.stop());

  it("answers another organization's runner and session on every runner route exactly as unknown ones, changing nothing", async () => {
    const runner = (await gw('POST', RUNNERS, a.key, { provider_type: 'fake', tool_profile: 'locked', ttl_seconds: 600, runtime_version: '1' })).body;
    const session = (await gw('POST', `${RUNNERS}/${runner.runner_id}/start`, a.key, {})).body;
    expect(session.state).toBe('active');
    const before = { runner: (await gw('GET', `${RUNNERS}/${runner.runner_id}`, a.key)).body, events: (await gw('GET', `${RUNNERS}/${runner.runner_id}/events`, a.key)).body };
    const routes: [string, (id: string) => string, unknown][] = [
      ['GET', (id) => `/${id}`, undefined],
      ['GET', (id) => `/${id}/events`, undefined],
      ['GET', (id) => `/${id}/stream?session_id=${session.session_id}`, undefined],
      ['POST', (id) => `/${id}/start`, {}],
      ['POST', (id) => `/${id}/stop?session_id=${session.session_id}`, undefined],
      ['POST', (id) => `/${id}/exec?session_id=${session.session_id}`, { argv: ['echo', 'stolen'] }],
      ['POST', (id) => `/${id}/terminate`, undefined],
      ['DELETE', (id) => `/byovm/${id}`, undefined],
    ];
    for (const [method, path, body] of routes) {
      const theirs = answer(await gw(method, `${RUNNERS}${path(runner.runner_id)}`, b.key, body), runner.runner_id);
      const unknown = answer(await gw(method, `${RUNNERS}${path('run_unknown')}`, b.key, body), 'run_unknown');
      expect({ route: `${method} ${path('{id}')}`, ...theirs }).toEqual({ route: `${method} ${path('{id}')}`, ...unknown });
      expect(theirs).toMatchObject({ status: 404, body: { error: { code: 'runner_not_found' } } });
    }
    expect((await gw('GET', RUNNERS, b.key)).body).toMatchObject({ runners: [], total: 0 });
    expect((await gw('GET', `${RUNNERS}/${runner.runner_id}`, a.key)).body).toEqual(before.runner);
    expect((await gw('GET', `${RUNNERS}/${runner.runner_id}/events`, a.key)).body).toEqual(before.events);
  });

  it('registers the same self-hosted machine id in both organizations, naming neither to the other', async () => {
    const mine = await gw('POST', `${RUNNERS}/byovm/register`, a.key, { machine_id: 'shared-machine' });
    const theirs = await gw('POST', `${RUNNERS}/byovm/register`, b.key, { machine_id: 'shared-machine' });
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.body).toMatchObject({ org_id: b.orgId });
    expect(JSON.stringify(theirs.body)).not.toContain(mine.body.runner_id);
  });

  it("polls another organization's approval as an unknown one", async () => {
    expect((await gw('POST', '/gateway/admin/policies', a.key, { hitl_cost_threshold: 0.0000001 })).status).toBeLessThan(300);
    const pending = await gw('POST', '/v1/chat/completions', a.key, chat('needs a reviewer'));
    expect(pending.status).toBe(202);
    const theirs = await gw('GET', `/v1/approvals/${pending.body.approval_id}/status`, b.key);
    const unknown = await gw('GET', '/v1/approvals/apr_unknown/status', b.key);
    expect(answer(theirs, pending.body.approval_id)).toEqual(answer(unknown, 'apr_unknown'));
    expect(theirs.body.error).toMatchObject({ type: 'not_found_error', code: 'not_found', param: 'approval_id' });
    expect((await gw('GET', `/v1/approvals/${pending.body.approval_id}/status`, a.key)).body).toMatchObject({ status: 'pending', org_id: a.orgId });
    expect((await gw('DELETE', `/gateway/admin/policies/${a.orgId}`, a.key)).status).toBe(200);
  });

  it("keeps Idempotency-Keys per organization: another organization's key is neither replayed nor refused", async () => {
    // The same body (a shared key would replay A's answer) and another body (a shared key would be 409).
    for (const content of ['once for A', 'another body']) {
      const idem = { 'Idempotency-Key': `tenant-${content.length}-${Date.now()}` };
      const first = await gw('POST', '/v1/chat/completions', a.key, chat('once for A'), idem);
      expect(first.status).toBe(200);
      const theirs = await gw('POST', '/v1/chat/completions', b.key, chat(content), idem);
      expect({ content, status: theirs.status, replayed: theirs.headers.get('idempotent-replayed'), org: theirs.headers.get('x-gateway-org') }).toEqual({ content, status: 200, replayed: null, org: b.orgId });
      expect(theirs.body.id).not.toBe(first.body.id);
      const replay = await gw('POST', '/v1/chat/completions', a.key, chat('once for A'), idem);
      expect({ replayed: replay.headers.get('idempotent-replayed'), id: replay.body.id }).toEqual({ replayed: 'true', id: first.body.id });
    }
  });

  it("charges nothing to another organization's runner session from a request carrying its proof", async () => {
    const runner = (await gw('POST', RUNNERS, a.key, { provider_type: 'fake', tool_profile: 'locked', ttl_seconds: 600, runtime_version: '1', session_budget_usd: 0.000001 })).body;
    const session = (await gw('POST', `${RUNNERS}/${runner.runner_id}/start`, a.key, {})).body;
    const headers = { 'X-Runner-ID': runner.runner_id, 'X-Session-ID': session.session_id, 'X-Runner-Proof': session.runner_proof };
    expect((await gw('POST', '/v1/chat/completions', a.key, chat('from the session'), headers)).body.error).toMatchObject({ code: 'session_budget_exceeded' });
    const theirs = await gw('POST', '/v1/chat/completions', b.key, chat('borrowed proof'), headers);
    expect({ status: theirs.status, org: theirs.headers.get('x-gateway-org') }).toEqual({ status: 200, org: b.orgId });
    const stored = await s.service.runtime.repositories.runnerSessions.findById(asOrgId(a.orgId), session.session_id);
    expect(stored?.spent_usd).toBe(0);
  });

  it("answers another organization's agent as an unknown one on the organization API", async () => {
    expect((await gw('POST', '/v1/chat/completions', a.key, chat('agent call'), { 'X-SVC-Agent': 'tenant-a-bot' })).status).toBe(200);
    const health = async (name: string, bearer: string) => {
      for (let i = 0; i < 40; i++) {
        const res = await s.call('org-api', 'GET', `/api/v1/agents/${name}/health`, { bearer });
        if (res.status !== 404 || bearer !== s.token) return res;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`agent ${name} never appeared`);
    };
    expect((await health('tenant-a-bot', s.token)).status).toBe(200);
    const theirs = answer(await health('tenant-a-bot', b.token), 'tenant-a-bot');
    expect(theirs).toEqual(answer(await health('nosuch-bot', b.token), 'nosuch-bot'));
    expect(theirs.status).toBe(404);
  });
});
