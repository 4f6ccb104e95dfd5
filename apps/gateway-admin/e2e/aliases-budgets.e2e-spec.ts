import { asOrgId } from '@svc/domain';
import { AdminHarness, gatewayError, Json, startAdmin } from './admin-harness';

describe('gateway admin: model aliases', () => {
  let h: AdminHarness;
  const published: string[] = [];
  beforeAll(async () => {
    h = await startAdmin();
    h.service.runtime.invalidation.subscribe('model-alias', (orgId) => published.push(orgId));
  });
  afterAll(() => h.stop());

  const create = (body: Json, key?: string) => h.call('POST', '/gateway/admin/model-aliases', { body, key });

  it('creates an alias, lists it with the read-only built-ins, reads, updates and deletes it', async () => {
    const res = await create({ alias: 'fast', model: 'llama-3.3-70b-versatile', provider: 'groq', description: 'cheap and quick' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: expect.stringMatching(/^als_/), alias: 'fast', model: 'llama-3.3-70b-versatile', provider: 'groq', resolves_to: 'groq/llama-3.3-70b-versatile', builtin: false });
    expect(published).toContain(h.org.id);

    const list = await h.call('GET', '/gateway/admin/model-aliases');
    expect(list.body.items).toEqual([res.body]);
    expect(list.body.builtin).toEqual(expect.arrayContaining([{ alias: 'gpt-latest', model: expect.any(String), resolves_to: expect.any(String), builtin: true }]));
    expect((await h.call('GET', `/gateway/admin/model-aliases/${res.body.id}`)).body).toEqual(res.body);

    const patched = await h.call('PATCH', `/gateway/admin/model-aliases/${res.body.id}`, { body: { model: 'gpt-4o-mini', provider: null } });
    expect(patched.body).toMatchObject({ alias: 'fast', model: 'gpt-4o-mini', provider: null, resolves_to: 'gpt-4o-mini' });
    expect((await h.call('DELETE', `/gateway/admin/model-aliases/${res.body.id}`)).status).toBe(204);
    gatewayError(await h.call('GET', `/gateway/admin/model-aliases/${res.body.id}`), 404, 'not_found');
  });

  it('409 resource_already_exists (model_alias, conflicting_id) for a taken alias, on create and rename', async () => {
    const first = (await create({ alias: 'smart', model: 'claude-sonnet-4-5' })).body;
    const dup = await create({ alias: 'smart', model: 'gpt-4o' });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toEqual({ code: 'resource_already_exists', message: expect.any(String), request_id: dup.headers.get('x-svc-request-id'), resource_type: 'model_alias', conflicting_id: first.id });
    const other = (await create({ alias: 'other', model: 'gpt-4o' })).body;
    const rename = await h.call('PATCH', `/gateway/admin/model-aliases/${other.id}`, { body: { alias: 'smart' } });
    expect(rename.body.error).toMatchObject({ code: 'resource_already_exists', conflicting_id: first.id });
    expect((await create({ alias: 'smart', model: 'gpt-4o' }, h.other.admin)).status).toBe(201);
  });

  it('lists custom aliases by alias name, paged like the other admin lists ({items, total, offset, limit}), with the built-ins', async () => {
    const org = await h.newOrg();
    for (const alias of ['charlie', 'alpha', 'bravo']) expect((await create({ alias, model: 'gpt-4o' }, org.admin)).status).toBe(201);
    const all = await h.call('GET', '/gateway/admin/model-aliases', { key: org.admin });
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ total: 3, offset: 0, limit: 20 });
    expect(all.body.items.map((a: Json) => a.alias)).toEqual(['alpha', 'bravo', 'charlie']);
    expect(all.body.builtin).toEqual(expect.arrayContaining([expect.objectContaining({ alias: 'gpt-latest', builtin: true })]));
    const first = await h.call('GET', '/gateway/admin/model-aliases?limit=2', { key: org.admin });
    expect(first.body).toMatchObject({ total: 3, offset: 0, limit: 2 });
    expect(first.body.items.map((a: Json) => a.alias)).toEqual(['alpha', 'bravo']);
    const second = await h.call('GET', '/gateway/admin/model-aliases?limit=2&offset=2', { key: org.admin });
    expect(second.body).toMatchObject({ total: 3, offset: 2, limit: 2 });
    expect(second.body.items.map((a: Json) => a.alias)).toEqual(['charlie']);
    expect((await h.call('GET', '/gateway/admin/model-aliases?limit=1000', { key: org.admin })).body).toMatchObject({ total: 3, limit: 1000 });
  });

  it.each([
    ['?limit=0', 'limit'],
    ['?limit=1001', 'limit'],
    ['?limit=abc', 'limit'],
    ['?offset=-1', 'offset'],
    ['?offset=abc', 'offset'],
    ['?offset=100000000000000000000', 'offset'],
    ['?foo=1', 'foo'],
  ])('GET /model-aliases%s is a 400 naming %s', async (query, param) => {
    expect(gatewayError(await h.call('GET', `/gateway/admin/model-aliases${query}`), 400, 'invalid_request').param).toBe(param);
  });

  it.each([
    [{ model: 'gpt-4o' }, 'alias'],
    [{ alias: 'a/b', model: 'gpt-4o' }, 'alias'],
    [{ alias: 'has space', model: 'gpt-4o' }, 'alias'],
    [{ alias: 'gpt-latest', model: 'gpt-4o' }, 'alias'],
    [{ alias: 'ok' }, 'model'],
    [{ alias: 'ok', model: '  ' }, 'model'],
    [{ alias: 'ok', model: 'x', provider: 'nowhere' }, 'provider'],
    [{ alias: 'ok', model: 'x', colour: 'red' }, 'colour'],
  ])('create %j is a 400 naming %s', async (body, param) => {
    expect(gatewayError(await create(body), 400).param).toBe(param);
  });

  describe('PATCH validation', () => {
    let target: Json;
    beforeAll(async () => {
      target = (await create({ alias: 'patch-target', model: 'gpt-4o', provider: 'openai', description: 'keep' })).body;
    });

    it.each([
      [{ alias: 'a/b' }, 'alias'],
      [{ alias: 'has space' }, 'alias'],
      [{ alias: '-leading' }, 'alias'],
      [{ alias: 'x'.repeat(129) }, 'alias'],
      [{ alias: 'gpt-latest' }, 'alias'],
      [{ alias: 42 }, 'alias'],
      [{ model: '   ' }, 'model'],
      [{ model: '' }, 'model'],
      [{ model: 'm'.repeat(257) }, 'model'],
      [{ provider: 'nowhere' }, 'provider'],
      [{ provider: '' }, 'provider'],
      [{ description: 'd'.repeat(501) }, 'description'],
      [{ colour: 'red' }, 'colour'],
      [{ alias: null }, 'alias'],
      [{ model: null }, 'model'],
    ])('PATCH %j is a 400 naming %s, and changes nothing', async (body, param) => {
      expect(gatewayError(await h.call('PATCH', `/gateway/admin/model-aliases/${target.id}`, { body }), 400).param).toBe(param);
      expect((await h.call('GET', `/gateway/admin/model-aliases/${target.id}`)).body).toEqual(target);
    });

    it('PATCH clears provider and description with null', async () => {
      const res = await h.call('PATCH', `/gateway/admin/model-aliases/${target.id}`, { body: { provider: null, description: null } });
      expect(res.body).toMatchObject({ provider: null, description: null, resolves_to: 'gpt-4o', model: 'gpt-4o', alias: 'patch-target' });
    });
  });

  it('answers 404 alias_id for another organization’s alias; needs admin:write to change', async () => {
    const theirs = (await h.call('GET', '/gateway/admin/model-aliases', { key: h.other.admin })).body.items[0];
    for (const [method, body] of [['GET', undefined], ['PATCH', { model: 'x' }], ['DELETE', undefined]] as const) {
      expect(gatewayError(await h.call(method, `/gateway/admin/model-aliases/${theirs.id}`, { body }), 404, 'not_found').param).toBe('alias_id');
    }
    const reader = (await h.newKey(h.org.id, ['admin:read'])).plaintext;
    const mine = (await h.call('GET', '/gateway/admin/model-aliases')).body.items[0];
    expect((await h.call('GET', '/gateway/admin/model-aliases', { key: reader })).status).toBe(200);
    gatewayError(await create({ alias: 'r', model: 'x' }, reader), 403, 'insufficient_scope');
    gatewayError(await h.call('PATCH', `/gateway/admin/model-aliases/${mine.id}`, { key: reader, body: { model: 'y' } }), 403, 'insufficient_scope');
    gatewayError(await h.call('DELETE', `/gateway/admin/model-aliases/${mine.id}`, { key: reader }), 403, 'insufficient_scope');
    gatewayError(await h.call('GET', '/gateway/admin/model-aliases', { key: (await h.newKey(h.org.id, ['gateway:read'])).plaintext }), 403, 'insufficient_scope');
  });
});

describe('gateway admin: hierarchical budget nodes', () => {
  let h: AdminHarness;
  let teamKey: string;
  let soloKey: string;
  const published: string[] = [];

  beforeAll(async () => {
    h = await startAdmin();
    h.service.runtime.invalidation.subscribe('policy', (orgId) => published.push(orgId));
    teamKey = (await h.newKey(h.org.id, ['gateway:write'], { team_id: 'team-ml' })).key._id;
    soloKey = (await h.newKey(h.org.id, ['gateway:write'])).key._id;
    const now = new Date();
    // Within today (UTC), so inside every node's current period whatever the time of day.
    const today = (ms: number) => new Date(Math.max(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) + ms, now.getTime() - 10_000 + ms));
    await h.seedUsage(h.org.id, [
      { key_id: teamKey, team_id: 'team-ml', cost: 1.25, created_at: today(1000) },
      { key_id: teamKey, team_id: 'team-ml', cost: 0.75, created_at: today(2000) },
      { key_id: soloKey, team_id: null, cost: 0.5, created_at: today(3000) },
      { key_id: soloKey, team_id: null, cost: 100, created_at: new Date(now.getTime() - 40 * 86_400_000) },
    ]);
    await h.seedUsage(h.other.id, [{ cost: 50, created_at: today(1000) }]);
  });
  afterAll(() => h.stop());

  const create = (body: Json, key?: string) => h.call('POST', '/gateway/admin/budgets/nodes', { body, key });

  it('creates org, team and key nodes linked into a tree, each with its current spend', async () => {
    const org = await create({ name: 'Company', level: 'org', budget_limit: 10, reset_period: 'daily' });
    expect(org.status).toBe(201);
    expect(org.body).toMatchObject({ level: 'org', parent_id: null, team_id: null, key_id: null, current_spend: 2.5, remaining: 7.5, utilization_pct: 25 });
    expect(published).toContain(h.org.id);
    const team = await create({ name: 'ML team', level: 'team', team_id: 'team-ml', budget_limit: 4, reset_period: 'weekly', alert_thresholds: [90, 50] });
    expect(team.body).toMatchObject({ parent_id: org.body.id, team_id: 'team-ml', current_spend: 2, utilization_pct: 50, alert_thresholds: [50, 90] });
    const key = await create({ name: 'Team key', level: 'key', key_id: teamKey, budget_limit: 1, reset_period: 'monthly' });
    expect(key.body).toMatchObject({ parent_id: team.body.id, team_id: 'team-ml', key_id: teamKey, current_spend: 2, remaining: 0, utilization_pct: 200 });
    const solo = await create({ name: 'Solo key', level: 'key', key_id: soloKey, budget_limit: 5, reset_period: 'daily' });
    expect(solo.body).toMatchObject({ parent_id: org.body.id, current_spend: 0.5 });
    expect(Date.parse(solo.body.period_end) - Date.parse(solo.body.period_start)).toBe(86_400_000);

    const list = await h.call('GET', '/gateway/admin/budgets/nodes');
    expect(list.body.total).toBe(4);
    expect(list.body.items.map((n: Json) => [n.name, n.current_spend])).toEqual([['Company', 2.5], ['ML team', 2], ['Team key', 2], ['Solo key', 0.5]]);
    expect((await h.call('GET', `/gateway/admin/budgets/nodes/${team.body.id}`)).body).toEqual(team.body);
  });

  it('409 resource_already_exists when the scope already has a node', async () => {
    const existing = (await h.call('GET', '/gateway/admin/budgets/nodes')).body.items.find((n: Json) => n.level === 'team');
    const res = await create({ name: 'Again', level: 'team', team_id: 'team-ml', budget_limit: 1, reset_period: 'daily' });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'resource_already_exists', resource_type: 'budget_node', conflicting_id: existing.id, request_id: expect.any(String) });
  });

  it.each([
    [{ level: 'org', budget_limit: 1, reset_period: 'daily' }, 'name'],
    [{ name: 'n', level: 'division', budget_limit: 1, reset_period: 'daily' }, 'level'],
    [{ name: 'n', level: 'team', team_id: 't2', budget_limit: 0, reset_period: 'daily' }, 'budget_limit'],
    [{ name: 'n', level: 'team', team_id: 't2', budget_limit: -5, reset_period: 'daily' }, 'budget_limit'],
    [{ name: 'n', level: 'team', team_id: 't2', budget_limit: '5', reset_period: 'daily' }, 'budget_limit'],
    [{ name: 'n', level: 'team', team_id: 't2', budget_limit: 1, reset_period: 'hourly' }, 'reset_period'],
    [{ name: 'n', level: 'team', team_id: 't2', budget_limit: 1 }, 'reset_period'],
    [{ name: 'n', level: 'team', budget_limit: 1, reset_period: 'daily' }, 'team_id'],
    [{ name: 'n', level: 'key', budget_limit: 1, reset_period: 'daily' }, 'key_id'],
    [{ name: 'n', level: 'org', team_id: 't', budget_limit: 1, reset_period: 'daily' }, 'team_id'],
    [{ name: 'n', level: 'team', team_id: 't2', budget_limit: 1, reset_period: 'daily', alert_thresholds: [150] }, 'alert_thresholds'],
    [{ name: 'n', level: 'team', team_id: 't2', budget_limit: 1, reset_period: 'daily', colour: 'red' }, 'colour'],
  ])('create %j is a 400 naming %s', async (body, param) => {
    expect(gatewayError(await create(body), 400).param).toBe(param);
  });

  it.each([
    [{ name: '   ' }, 'name'],
    [{ name: '' }, 'name'],
    [{ budget_limit: 0 }, 'budget_limit'],
    [{ budget_limit: '5' }, 'budget_limit'],
    [{ budget_limit: 1_000_000_001 }, 'budget_limit'],
    [{ reset_period: 'hourly' }, 'reset_period'],
    [{ alert_thresholds: [0] }, 'alert_thresholds'],
    [{ alert_thresholds: [101] }, 'alert_thresholds'],
    [{ alert_thresholds: Array.from({ length: 11 }, (_, i) => i + 1) }, 'alert_thresholds'],
    [{ parent_id: 'node_unknown' }, 'parent_id'],
    [{ level: 'org' }, 'level'],
    [{ key_id: 'key_x' }, 'key_id'],
    [{ colour: 'red' }, 'colour'],
    [{ name: null }, 'name'],
    [{ budget_limit: null }, 'budget_limit'],
    [{ reset_period: null }, 'reset_period'],
    [{ alert_thresholds: null }, 'alert_thresholds'],
  ])('PATCH %j is a 400 (or 404 for an unknown parent) naming %s, and changes nothing', async (body, param) => {
    const node = (await h.call('GET', '/gateway/admin/budgets/nodes')).body.items.find((n: Json) => n.level === 'team');
    const stored = await h.repos.budgetNodes.findById(asOrgId(h.org.id), node.id);
    const reply = await h.call('PATCH', `/gateway/admin/budgets/nodes/${node.id}`, { body });
    expect(gatewayError(reply, param === 'parent_id' ? 404 : 400).param).toBe(param);
    expect(await h.repos.budgetNodes.findById(asOrgId(h.org.id), node.id)).toEqual(stored);
  });

  it.each([
    [{ name: 'n', level: 'team', team_id: null, budget_limit: 1, reset_period: 'daily' }, 'team_id'],
    [{ name: 'n', level: 'key', key_id: null, budget_limit: 1, reset_period: 'daily' }, 'key_id'],
    [{ name: 'n', level: 'team', team_id: 't3', parent_id: null, budget_limit: 1, reset_period: 'daily' }, 'parent_id'],
    [{ name: 'n', level: 'team', team_id: 't3', alert_thresholds: null, budget_limit: 1, reset_period: 'daily' }, 'alert_thresholds'],
  ])('create %j is a 400 naming %s (null is not absent)', async (body, param) => {
    expect(gatewayError(await create(body), 400).param).toBe(param);
  });

  it('updates and deletes a node (children move up); ids of other organizations are 404', async () => {
    const nodes = (await h.call('GET', '/gateway/admin/budgets/nodes')).body.items as Json[];
    const team = nodes.find((n) => n.level === 'team') as Json;
    const orgNode = nodes.find((n) => n.level === 'org') as Json;
    const patched = await h.call('PATCH', `/gateway/admin/budgets/nodes/${team.id}`, { body: { budget_limit: 8, reset_period: 'daily', name: 'ML' } });
    expect(patched.body).toMatchObject({ name: 'ML', budget_limit: 8, reset_period: 'daily', utilization_pct: 25 });
    expect(gatewayError(await h.call('PATCH', `/gateway/admin/budgets/nodes/${team.id}`, { body: { budget_limit: 0 } }), 400).param).toBe('budget_limit');
    expect(gatewayError(await h.call('PATCH', `/gateway/admin/budgets/nodes/${orgNode.id}`, { body: { parent_id: team.id } }), 400).param).toBe('parent_id');

    expect((await h.call('DELETE', `/gateway/admin/budgets/nodes/${team.id}`)).status).toBe(204);
    const keyNode = (await h.repos.budgetNodes.listAll(asOrgId(h.org.id))).find((n) => n.key_id === teamKey);
    expect(keyNode?.parent_id).toBe(orgNode.id);
    gatewayError(await h.call('GET', `/gateway/admin/budgets/nodes/${team.id}`), 404, 'not_found');

    const theirs = (await create({ name: 'Theirs', level: 'org', budget_limit: 1, reset_period: 'daily' }, h.other.admin)).body;
    expect(theirs.current_spend).toBe(50);
    for (const [method, body] of [['GET', undefined], ['PATCH', { name: 'x' }], ['DELETE', undefined]] as const) {
      expect(gatewayError(await h.call(method, `/gateway/admin/budgets/nodes/${theirs.id}`, { body }), 404, 'not_found').param).toBe('node_id');
    }
    const otherKey = (await h.newKey(h.other.id, ['gateway:write'])).key._id;
    expect(gatewayError(await create({ name: 'k', level: 'key', key_id: otherKey, budget_limit: 1, reset_period: 'daily' }), 404).param).toBe('key_id');
  });

  it('a key node follows its key through rotation and keeps the period’s spend of the old key', async () => {
    const now = Date.now();
    const todayAt = (ms: number) => new Date(Math.max(now - (now % 86_400_000) + ms, now - 5_000 + ms));
    const old = await h.newKey(h.org.id, ['gateway:write']);
    await h.seedUsage(h.org.id, [{ key_id: old.key._id, cost: 0.4, created_at: todayAt(0) }]);
    const node = (await create({ name: 'Rotating key', level: 'key', key_id: old.key._id, budget_limit: 2, reset_period: 'daily' })).body;
    published.length = 0;
    const first = await h.call('POST', `/gateway/admin/keys/${old.key._id}/rotate`);
    expect(published).toContain(h.org.id);
    const second = await h.call('POST', `/gateway/admin/keys/${first.body.id}/rotate`, { body: { grace_period_hours: 0 } });
    await h.seedUsage(h.org.id, [
      { key_id: first.body.id, cost: 0.1, created_at: todayAt(1000) },
      { key_id: second.body.id, cost: 0.25, created_at: todayAt(2000) },
    ]);
    expect((await h.call('GET', `/gateway/admin/budgets/nodes/${node.id}`)).body).toMatchObject({ key_id: second.body.id, current_spend: 0.75, remaining: 1.25 });
    const stored = await h.repos.budgetNodes.findForRequest(asOrgId(h.org.id), { keyId: second.body.id });
    expect(stored.map((n) => n._id)).toContain(node.id);
    expect((await h.repos.budgetNodes.findForRequest(asOrgId(h.org.id), { keyId: old.key._id })).map((n) => n._id)).not.toContain(node.id);
  });

  it('needs admin:write to change and admin:read to read', async () => {
    const reader = (await h.newKey(h.org.id, ['admin:read'])).plaintext;
    const node = (await h.call('GET', '/gateway/admin/budgets/nodes')).body.items[0];
    expect((await h.call('GET', '/gateway/admin/budgets/nodes', { key: reader })).status).toBe(200);
    gatewayError(await create({ name: 'x', level: 'team', team_id: 'z', budget_limit: 1, reset_period: 'daily' }, reader), 403, 'insufficient_scope');
    gatewayError(await h.call('PATCH', `/gateway/admin/budgets/nodes/${node.id}`, { key: reader, body: { name: 'x' } }), 403, 'insufficient_scope');
    gatewayError(await h.call('DELETE', `/gateway/admin/budgets/nodes/${node.id}`, { key: reader }), 403, 'insufficient_scope');
    gatewayError(await h.call('GET', '/gateway/admin/budgets/nodes', { key: (await h.newKey(h.org.id, ['billing:read'])).plaintext }), 403, 'insufficient_scope');
  });
});
