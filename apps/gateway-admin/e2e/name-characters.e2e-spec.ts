import { asOrgId } from '@svc/domain';
import { AdminHarness, gatewayError, Json, startAdmin } from './admin-harness';

/**
 * Human-readable names of the gateway admin surface (API keys, budget nodes, provider targets, secret
 * labels) refuse control characters, line breaks, the Unicode line/paragraph separators and the
 * bidirectional embeddings, overrides and isolates: 400 `invalid_request` with `param` naming the
 * field, nothing stored. Names stored before are still listed and used.
 */
describe('gateway admin: control characters in names', () => {
  const node = { level: 'team', team_id: 'team-names', budget_limit: 5, reset_period: 'daily' };
  let h: AdminHarness;
  let existingNode: Json;
  beforeAll(async () => {
    h = await startAdmin();
    existingNode = (await h.call('POST', '/gateway/admin/budgets/nodes', { body: { ...node, name: 'team names' } })).body;
  });
  afterAll(() => h.stop());

  const BAD = [
    ...['\u0000', '\t', '\n', '\r', '\u001b', '\u007f', '\u0085', '\u2028', '\u2029'],
    // Bidirectional embeddings and overrides (LRE, RLE, PDF, LRO, RLO) and isolates (LRI, RLI, FSI, PDI).
    ...['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069'],
  ];
  const named = (c: string) => `ops${c}team`;

  const counts = async () => {
    const org = asOrgId(h.org.id);
    return {
      keys: await h.repos.apiKeys.count(org),
      nodes: (await h.repos.budgetNodes.listAll(org)).length,
      targets: (await h.call('GET', '/gateway/admin/provider-targets')).body.total,
      secrets: (await h.call('GET', '/gateway/admin/secrets')).body.total,
    };
  };

  it.each(BAD.map((c) => [`U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`, c]))(
    'refuses %s in every name field with 400 naming it, and stores nothing',
    async (code, c) => {
      const before = await counts();
      const cases: [string, string, Json, string][] = [
        ['POST', '/v1/admin/api-keys', { name: named(c), scopes: ['admin:read'] }, 'name'],
        ['POST', '/gateway/admin/budgets/nodes', { ...node, name: named(c) }, 'name'],
        ['PATCH', `/gateway/admin/budgets/nodes/${existingNode.id}`, { name: named(c) }, 'name'],
        ['POST', '/gateway/admin/provider-targets', { name: named(c), base_url: 'https://llm.example.com/v1' }, 'name'],
        ['PATCH', '/gateway/admin/provider-targets/tgt_unknown', { name: named(c) }, 'name'],
        ['POST', '/gateway/admin/secrets', { provider: 'openai', plaintext_key: 'sk-test-12345678', label: named(c) }, 'label'],
        ['POST', '/gateway/admin/secrets/rotate', { provider: 'openai', plaintext_key: 'sk-test-12345678', label: named(c) }, 'label'],
      ];
      for (const [method, path, body, param] of cases) {
        const error = gatewayError(await h.call(method, path, { body }), 400, 'invalid_request');
        expect({ path, type: error.type, param: error.param }).toEqual({ path, type: 'invalid_request_error', param });
        expect(error.message).toContain(`${param} must not contain control characters`);
        expect(error.message).toContain(`found ${code} at position 4`);
      }
      expect(await counts()).toEqual(before);
      expect((await h.repos.budgetNodes.findById(asOrgId(h.org.id), existingNode.id))?.name).toBe(existingNode.name);
    },
  );

  it('accepts other text (accents, other scripts, the LRM/RLM marks, emoji) as a name', async () => {
    for (const [i, name] of ['Équipe données', 'データ', 'bot 🚀 — nightly', 'צוות\u200f 2', 'ops\u200eteam'].entries()) {
      const key = await h.call('POST', '/v1/admin/api-keys', { body: { name, scopes: ['admin:read'] } });
      expect([key.status, key.body.name]).toEqual([201, name]);
      const created = await h.call('POST', '/gateway/admin/budgets/nodes', { body: { ...node, team_id: `team-accept-${i}`, name } });
      expect([created.status, created.body.name]).toEqual([201, name]);
    }
  });

  it('still lists and uses a key whose name was stored before the rule', async () => {
    const legacy = await h.newKey(h.org.id, ['admin:read'], { name: 'legacy\u0001key\r\n' });
    const list = await h.call('GET', '/v1/admin/api-keys?limit=100', { key: legacy.plaintext });
    expect(list.status).toBe(200);
    expect(list.body.items.find((k: Json) => k.id === legacy.key._id)?.name).toBe('legacy\u0001key\r\n');
  });
});
