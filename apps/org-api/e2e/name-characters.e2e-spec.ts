import { asOrgId, generateApiKey, hashApiKey, keyDisplayPrefix, keyLastFour } from '@svc/domain';
import { Json, OrgApi, Session } from './org-api.helpers';

/**
 * Human-readable names (API keys, named budgets, the organization, members, sign-up) refuse control
 * characters, line breaks, the Unicode line/paragraph separators and the bidirectional embeddings,
 * overrides and isolates with 400 VALIDATION_ERROR naming the field (docs/org-api-access.md "Errors and
 * collections"); any other text, non-ASCII and the LRM/RLM marks included, is a name. Names stored
 * before the rule are still listed and usable.
 */
describe('org API: control characters in names', () => {
  let api: OrgApi;
  let owner: Session;

  beforeAll(async () => {
    api = await OrgApi.boot({ SIGNUP_ENABLED: 'true' });
    owner = await api.loginOwner();
  });
  afterAll(() => api.stop());

  /**
   * One of each kind refused: NUL, tab, line feed, carriage return, US, DEL, NEL and another C1, LS, PS,
   * and every bidirectional embedding and override (LRE, RLE, PDF, LRO, RLO) and isolate (LRI, RLI, FSI, PDI).
   */
  const BAD = [
    ...['\u0000', '\t', '\n', '\r', '\u001f', '\u007f', '\u0085', '\u009f', '\u2028', '\u2029'],
    ...['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069'],
  ];
  const named = (c: string) => `ops${c}team`;
  const codePoint = (c: string) => `U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;

  const expectRefused = (res: { status: number; body: Json }, param: string, c: string) => {
    expect({ status: res.status, code: res.body.error?.code, param: res.body.error?.details?.param }).toEqual({ status: 400, code: 'VALIDATION_ERROR', param });
    expect(res.body.error.message).toContain(`${param} must not contain control characters`);
    expect(res.body.error.message).toContain(`found ${codePoint(c)} at position 4`);
  };

  const budgetId = async (): Promise<string> => {
    const res = await api.call('POST', '/api/v1/admin/costs/budgets', { token: owner.token, body: { name: `b-${Math.random().toString(36).slice(2)}`, limit: 10 } });
    expect(res.status).toBe(200);
    return res.body.id;
  };

  /** Each route that takes a name: [label, method, path, body for the name, the field]. */
  const routes = (): [string, string, () => Promise<string>, (name: string) => Json, string][] => [
    ['POST /platform/api-keys', 'POST', async () => '/api/v1/platform/api-keys', (name) => ({ name, scopes: ['gateway:write'] }), 'name'],
    ['POST /admin/keys', 'POST', async () => '/api/v1/admin/keys', (name) => ({ name, org_id: owner.orgId }), 'name'],
    ['POST /admin/costs/budgets', 'POST', async () => '/api/v1/admin/costs/budgets', (name) => ({ name, limit: 5 }), 'name'],
    ['PUT /admin/costs/budgets/{id}', 'PUT', async () => `/api/v1/admin/costs/budgets/${await budgetId()}`, (name) => ({ name }), 'name'],
    ['PATCH /organizations/{org_id}', 'PATCH', async () => `/api/v1/organizations/${owner.orgId}`, (name) => ({ name }), 'name'],
    [
      'POST /organizations/{org_id}/members',
      'POST',
      async () => `/api/v1/organizations/${owner.orgId}/members`,
      (name) => ({ email: `m-${Math.random().toString(36).slice(2)}@example.com`, password: 'a-long-password-1', role: 'Member', name }),
      'name',
    ],
  ];

  it.each(BAD.map((c) => [codePoint(c), c]))('refuses %s in every name field with 400 naming the field, and stores nothing', async (_code, c) => {
    const before = {
      keys: await api.repos.apiKeys.count(asOrgId(owner.orgId)),
      members: await api.repos.users.count(asOrgId(owner.orgId)),
      org: (await api.repos.organizations.findById(asOrgId(owner.orgId)))?.name,
    };
    for (const [label, method, path, body, param] of routes()) {
      const url = await path();
      const createdBudgets = await api.repos.namedBudgets.count(asOrgId(owner.orgId));
      const res = await api.call(method, url, { token: owner.token, body: body(named(c)) });
      expect([label, res.status]).toEqual([label, 400]);
      expectRefused(res, param, c);
      expect(await api.repos.namedBudgets.count(asOrgId(owner.orgId))).toBe(createdBudgets);
    }
    expect(await api.repos.apiKeys.count(asOrgId(owner.orgId))).toBe(before.keys);
    expect(await api.repos.users.count(asOrgId(owner.orgId))).toBe(before.members);
    expect((await api.repos.organizations.findById(asOrgId(owner.orgId)))?.name).toBe(before.org);
    const budgets = await api.repos.namedBudgets.listAll(asOrgId(owner.orgId));
    expect(budgets.some((b) => b.name.includes(c))).toBe(false);
  });

  it('refuses them in sign-up (org_name and name) and creates no organization', async () => {
    for (const c of ['\n', '\u0085', '\u2028', '\u202e', '\u2066']) {
      const email = `founder-${Math.random().toString(36).slice(2)}@example.com`;
      const org = await api.call('POST', '/api/v1/auth/register', { body: { email, password: 'a-long-password-1', org_name: named(c) } });
      expectRefused(org, 'org_name', c);
      const name = await api.call('POST', '/api/v1/auth/register', { body: { email, password: 'a-long-password-1', org_name: 'Fine', name: named(c) } });
      expectRefused(name, 'name', c);
      expect((await api.call('POST', '/api/v1/auth/login', { body: { email, password: 'a-long-password-1' } })).status).toBe(401);
    }
  });

  it('accepts any other text: spaces, punctuation, accents, other scripts, the LRM/RLM marks and emoji', async () => {
    const names = ['Équipe données', 'データ チーム', 'ops — nightly (β) 🚀', 'a\u00a0b', 'x', 'צוות\u200f 2', 'ops\u200eteam'];
    for (const name of names) {
      const key = await api.call('POST', '/api/v1/platform/api-keys', { token: owner.token, body: { name, scopes: ['gateway:write'] } });
      expect([name, key.status, key.body.name]).toEqual([name, 201, name]);
      const budget = await api.call('POST', '/api/v1/admin/costs/budgets', { token: owner.token, body: { name, limit: 1 } });
      expect([name, budget.status, budget.body.name]).toEqual([name, 200, name]);
    }
    const renamed = await api.call('PATCH', `/api/v1/organizations/${owner.orgId}`, { token: owner.token, body: { name: 'Acme — Zürich' } });
    expect([renamed.status, renamed.body.name]).toEqual([200, 'Acme — Zürich']);
  });

  it('a webhook description may run over lines but refuses the other control, separator and bidirectional characters', async () => {
    const hooks = '/api/v1/admin/webhooks';
    const before = (await api.call('GET', hooks, { token: owner.token })).body.total;
    for (const [c, code] of [['\u0000', 'U+0000'], ['\u001b', 'U+001B'], ['\u2028', 'U+2028'], ['\u202e', 'U+202E']]) {
      const res = await api.call('POST', hooks, { token: owner.token, body: { url: 'https://8.8.8.8/hooks/text', events: ['budget.warning'], description: `bad${c}text` } });
      expect([res.status, res.body.error?.code, res.body.error?.details?.param]).toEqual([400, 'VALIDATION_ERROR', 'description']);
      expect(res.body.error.message).toContain(`found ${code} at position 4`);
    }
    expect((await api.call('GET', hooks, { token: owner.token })).body.total).toBe(before);
    const description = 'Finance alerts.\r\n\tOwner: data team';
    const created = await api.call('POST', hooks, { token: owner.token, body: { url: 'https://8.8.8.8/hooks/text', events: ['budget.warning'], description } });
    expect([created.status, created.body.description]).toEqual([201, description]);
    const patched = await api.call('PATCH', `${hooks}/${created.body.id}`, { token: owner.token, body: { description: 'x\u202ey' } });
    expect([patched.status, patched.body.error?.details?.param]).toEqual([400, 'description']);
  });

  it('still lists and serves names stored before the rule', async () => {
    const orgId = asOrgId(owner.orgId);
    const legacyName = 'legacy\u0007key\nline2';
    const plaintext = generateApiKey();
    const key = await api.repos.apiKeys.create(orgId, {
      name: legacyName,
      key_hash: hashApiKey(plaintext),
      key_prefix: keyDisplayPrefix(plaintext),
      last_four: keyLastFour(plaintext),
      scopes: ['admin:read', 'budgets:write'],
      team_id: null,
    });
    const list = await api.call('GET', '/api/v1/platform/api-keys?limit=100', { token: owner.token });
    expect(list.status).toBe(200);
    expect(list.body.items.find((k: Json) => k.id === key._id)?.name).toBe(legacyName);
    // The key still authenticates, and shows its name as stored.
    const profile = await api.call('GET', '/api/v1/user/profile', { key: plaintext });
    expect([profile.status, profile.body.name]).toEqual([200, legacyName]);

    const created = await api.call('POST', '/api/v1/admin/costs/budgets', { token: owner.token, body: { name: 'to-be-legacy', limit: 10 } });
    const legacyBudget = 'legacy\u2028budget';
    await api.repos.namedBudgets.updateById(orgId, created.body.id, { name: legacyBudget });
    const budgets = await api.call('GET', '/api/v1/admin/costs/budgets?page_size=200', { token: owner.token });
    expect(budgets.body.budgets.find((b: Json) => b.id === created.body.id)?.name).toBe(legacyBudget);
    // A change that does not send the name keeps it.
    const updated = await api.call('PUT', `/api/v1/admin/costs/budgets/${created.body.id}`, { key: plaintext, body: { limit: 20 } });
    expect([updated.status, updated.body.name, updated.body.limit]).toEqual([200, legacyBudget, 20]);
  });
});
