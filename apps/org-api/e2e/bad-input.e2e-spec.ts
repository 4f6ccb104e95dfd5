import { Json, OrgApi, Reply, Session } from './org-api.helpers';

/**
 * Bodies and queries a client can send that the validation let through to a 500 or silently
 * ignored: each is a 400 VALIDATION_ERROR in the documented `{error: {code, message, details}}`
 * format naming the field, and nothing is written.
 */
describe('org API: bad input is a 400 naming the field, never a 500 nor ignored', () => {
  let api: OrgApi;
  let owner: Session;
  beforeAll(async () => {
    api = await OrgApi.boot({ SIGNUP_ENABLED: 'true' });
    owner = await api.loginOwner();
  });
  afterAll(() => api.stop());

  /** A request with its JSON body as written (a lone surrogate or a `__proto__` key survive as sent). */
  const raw = async (method: string, path: string, body?: string, token = owner.token): Promise<Reply> => {
    const res = await fetch(`${api.base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body,
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Json) : {}, headers: res.headers };
  };
  const refusal = (res: Reply) => ({ status: res.status, code: res.body.error?.code, param: res.body.error?.details?.param });

  describe('an e-mail holding a lone surrogate (encodeURI threw URIError in the e-mail check)', () => {
    it('adding a member: 400 naming email, nobody created', async () => {
      const members = `/api/v1/organizations/${owner.orgId}/members`;
      for (const email of ['\\ud800', 'ada\\udc00@example.com', 'ada@exa\\ud83dmple.com']) {
        const res = await raw('POST', members, `{"email":"${email}","password":"member-password-1","role":"Member"}`);
        expect({ email, ...refusal(res) }).toEqual({ email, status: 400, code: 'VALIDATION_ERROR', param: 'email' });
        expect(res.body.error.message).toBe('email must be an email');
      }
      const list = await api.call('GET', `${members}?limit=100`, { token: owner.token });
      expect(list.body.items.map((m: Json) => m.email)).toEqual(['owner@example.com']);
      // A well-formed pair (an emoji) is still text; the e-mail check answers for it as for any other.
      const emoji = await raw('POST', members, '{"email":"ada\\ud83d\\ude00@example.com","password":"member-password-1","role":"Member"}');
      expect(refusal(emoji)).toEqual({ status: 400, code: 'VALIDATION_ERROR', param: 'email' });
      const plain = await raw('POST', members, '{"email":"ada@example.com","password":"member-password-1","role":"Member"}');
      expect(plain.status).toBe(201);
    });

    it('sign-up: 400 naming email, no organization created; a login with one is the usual 401', async () => {
      const res = await raw('POST', '/api/v1/auth/register', '{"email":"founder\\ud800@example.com","password":"a-long-password-1","org_name":"Surrogate Co"}');
      expect(refusal(res)).toEqual({ status: 400, code: 'VALIDATION_ERROR', param: 'email' });
      expect(await api.repos.users.findByEmailForLogin('founder\ud800@example.com')).toBeNull();
      const login = await raw('POST', '/api/v1/auth/login', '{"email":"\\ud800","password":"whatever-password"}');
      expect(login.status).toBe(401);
      expect(login.body.error.code).toBe('UNAUTHORIZED');
    });
  });

  describe('a named budget whose alerts hold an array instead of an alert object', () => {
    const budgets = '/api/v1/admin/costs/budgets';

    it('POST: 400 naming alerts, nothing created', async () => {
      for (const alerts of ['[[]]', '[[{"threshold":50,"channels":["email"]}]]', '[{"threshold":20,"channels":["email"]},[]]']) {
        const res = await raw('POST', budgets, `{"name":"nested","limit":10,"alerts":${alerts}}`);
        expect({ alerts, ...refusal(res) }).toEqual({ alerts, status: 400, code: 'VALIDATION_ERROR', param: 'alerts' });
        expect(res.body.error.message).toBe('each value in alerts must be an object ({threshold, channels}), not an array');
      }
      const list = await api.call('GET', budgets, { token: owner.token });
      expect(list.body.budgets.filter((b: Json) => b.name === 'nested')).toEqual([]);
    });

    it('PUT: 400 naming alerts, the budget unchanged', async () => {
      const created = await api.call('POST', budgets, { token: owner.token, body: { name: 'kept', limit: 10, alerts: [{ threshold: 50, channels: ['email'] }] } });
      expect(created.status).toBe(200);
      for (const alerts of ['[[]]', '[[{"threshold":80,"channels":["webhook"]}]]']) {
        const res = await raw('PUT', `${budgets}/${created.body.id}`, `{"alerts":${alerts}}`);
        expect({ alerts, ...refusal(res) }).toEqual({ alerts, status: 400, code: 'VALIDATION_ERROR', param: 'alerts' });
      }
      const after = await api.call('GET', `${budgets}/${created.body.id}`, { token: owner.token });
      expect(after.body).toMatchObject({ alerts: [{ threshold: 50, channels: ['email'], triggered: false, triggered_at: null }], updated_at: created.body.updated_at });
      // The other non-objects keep the nested check's own refusal.
      const nullAlert = await raw('PUT', `${budgets}/${created.body.id}`, '{"alerts":[null]}');
      expect(refusal(nullAlert)).toEqual({ status: 400, code: 'VALIDATION_ERROR', param: 'alerts.0' });
    });
  });

  describe('a field named like a member of Object.prototype is an unknown field', () => {
    const names = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];

    it('in a body: 400 "property <name> should not exist", nothing created', async () => {
      for (const name of names) {
        const key = await raw('POST', '/api/v1/platform/api-keys', `{"name":"proto-${name}","scopes":["gateway:read"],"${name}":{"x":1}}`);
        expect({ name, ...refusal(key) }).toEqual({ name, status: 400, code: 'VALIDATION_ERROR', param: name });
        expect(key.body.error.message).toBe(`property ${name} should not exist`);
        const budget = await raw('POST', '/api/v1/admin/costs/budgets', `{"${name}":"x","name":"proto-${name}","limit":1}`);
        expect({ name, ...refusal(budget) }).toEqual({ name, status: 400, code: 'VALIDATION_ERROR', param: name });
      }
      const keys = await api.call('GET', '/api/v1/platform/api-keys?limit=100', { token: owner.token });
      expect(keys.body.items.filter((k: Json) => String(k.name).startsWith('proto-'))).toEqual([]);
      const budgets = await api.call('GET', '/api/v1/admin/costs/budgets?page_size=200', { token: owner.token });
      expect(budgets.body.budgets.filter((b: Json) => String(b.name).startsWith('proto-'))).toEqual([]);
      // A partial update with only such a field is refused too, not a 200 that changed nothing.
      const patch = await raw('PATCH', `/api/v1/organizations/${owner.orgId}`, '{"constructor":"Renamed"}');
      expect(refusal(patch)).toEqual({ status: 400, code: 'VALIDATION_ERROR', param: 'constructor' });
    });

    it('in a query: 400 naming the parameter, on collections and on routes without parameters', async () => {
      for (const name of names) {
        for (const path of ['/api/v1/platform/api-keys', '/api/v1/admin/costs/budgets', '/api/v1/admin/metrics/cost-optimization', '/api/v1/user/profile']) {
          const res = await api.call('GET', `${path}?${name}=1`, { token: owner.token });
          expect({ path, name, ...refusal(res) }).toEqual({ path, name, status: 400, code: 'VALIDATION_ERROR', param: name });
          expect(res.body.error.message).toBe(`property ${name} should not exist`);
        }
      }
      // The parameters a route takes still work.
      expect((await api.call('GET', '/api/v1/platform/api-keys?offset=0&limit=5', { token: owner.token })).status).toBe(200);
    });

    it('at any depth: in a nested object (an alert) and in a free-form one (a test delivery payload), 400 naming its path', async () => {
      // Below the top level class-transformer dropped such a field: the alert was created without it, the payload delivered without it.
      for (const name of names) {
        const budget = await raw('POST', '/api/v1/admin/costs/budgets', `{"name":"proto-alert-${name}","limit":1,"alerts":[{"threshold":50,"channels":["email"],"${name}":1}]}`);
        expect({ name, ...refusal(budget) }).toEqual({ name, status: 400, code: 'VALIDATION_ERROR', param: `alerts.0.${name}` });
        expect(budget.body.error.message).toBe(`property alerts.0.${name} should not exist`);
        const delivery = await raw('POST', '/api/v1/webhooks/deliver', `{"webhook_id":"wh_none","payload":{"ok":{"${name}":{"a":1}}}}`);
        expect({ name, ...refusal(delivery) }).toEqual({ name, status: 400, code: 'VALIDATION_ERROR', param: `payload.ok.${name}` });
      }
      const budgets = await api.call('GET', '/api/v1/admin/costs/budgets?page_size=200', { token: owner.token });
      expect(budgets.body.budgets.filter((b: Json) => String(b.name).startsWith('proto-alert-'))).toEqual([]);
      // Other keys of a payload are data, as before.
      const plain = await raw('POST', '/api/v1/webhooks/deliver', '{"webhook_id":"wh_none","payload":{"constructors":1,"proto":{"a":1}}}');
      expect(refusal(plain)).toEqual({ status: 404, code: 'NOT_FOUND', param: undefined });
    });
  });

  it('a 404 echoes the id with control and bidirectional characters escaped', async () => {
    const res = await raw('GET', '/api/v1/admin/costs/budgets/%E2%80%AEb%0A');
    expect([res.status, res.body.error]).toEqual([404, { code: 'NOT_FOUND', message: 'Budget not found', details: { id: '\\u202eb\\u000a' } }]);
  });
});
