import { asOrgId } from '@svc/domain';
import { AdminHarness, gatewayError, Json, startAdmin } from './admin-harness';

/**
 * The wording of validation refusals: `null` for an optional field of a create says "omit it for the
 * default", of a partial update "omit it to leave it unchanged", also for the fields a create and an
 * update share through a base class; a required field left out or null says only that.
 */
describe('gateway admin: validation messages of null and missing fields', () => {
  let h: AdminHarness;
  let keyId: string;
  beforeAll(async () => {
    h = await startAdmin();
    keyId = (await h.newKey(h.org.id, ['admin:read'], { name: 'to-rotate' })).key._id;
  });
  afterAll(() => h.stop());

  const node = { name: 'n', level: 'team', team_id: 'team-null', budget_limit: 1, reset_period: 'daily' };
  const target = { name: 'Null target', base_url: 'https://llm.example.com/v1' };

  const counts = async () => {
    const org = asOrgId(h.org.id);
    return {
      nodes: (await h.repos.budgetNodes.listAll(org)).length,
      targets: (await h.call('GET', '/gateway/admin/provider-targets')).body.total,
      secrets: (await h.call('GET', '/gateway/admin/secrets')).body.total,
      replaced: (await h.repos.apiKeys.findById(org, keyId))?.replaced_by ?? null,
    };
  };

  const expectRefusal = async (method: string, path: string, body: Json | undefined, param: string, message: string) => {
    const error = gatewayError(await h.call(method, path, { body }), 400, 'invalid_request');
    expect({ path, body, type: error.type, param: error.param, message: error.message }).toEqual({ path, body, type: 'invalid_request_error', param, message });
  };

  it('refuses null for an optional field of every create with the create wording, inherited fields too, and creates nothing', async () => {
    const before = await counts();
    const create = (field: string) => `${field} must not be null (omit it for the default)`;
    const cases: [string, Json, string][] = [
      ['/gateway/admin/budgets/nodes', { ...node, team_id: null }, 'team_id'],
      ['/gateway/admin/budgets/nodes', { ...node, parent_id: null }, 'parent_id'],
      // alert_thresholds, enabled and models are declared on the base the update shares.
      ['/gateway/admin/budgets/nodes', { ...node, alert_thresholds: null }, 'alert_thresholds'],
      ['/gateway/admin/provider-targets', { ...target, enabled: null }, 'enabled'],
      ['/gateway/admin/provider-targets', { ...target, models: null }, 'models'],
      ['/gateway/admin/provider-targets', { ...target, api_key: null }, 'api_key'],
      ['/gateway/admin/secrets', { provider: 'openai', plaintext_key: null }, 'plaintext_key'],
      ['/gateway/admin/secrets/rotate', { provider: 'openai', secret: null }, 'secret'],
      ['/gateway/admin/policies/simulate', { draft_policy: {}, replay_hours: null }, 'replay_hours'],
      [`/gateway/admin/keys/${keyId}/rotate`, { grace_period_hours: null }, 'grace_period_hours'],
    ];
    for (const [path, body, param] of cases) await expectRefusal('POST', path, body, param, create(param));
    expect(await counts()).toEqual(before);
  });

  it('keeps the update wording for the same shared fields on PATCH, and changes nothing', async () => {
    const created = await h.call('POST', '/gateway/admin/budgets/nodes', { body: { ...node, team_id: 'team-patch' } });
    expect(created.status).toBe(201);
    const stored = await h.repos.budgetNodes.findById(asOrgId(h.org.id), created.body.id);
    const update = (field: string) => `${field} must not be null (omit it to leave it unchanged)`;
    await expectRefusal('PATCH', `/gateway/admin/budgets/nodes/${created.body.id}`, { alert_thresholds: null }, 'alert_thresholds', update('alert_thresholds'));
    await expectRefusal('PATCH', `/gateway/admin/budgets/nodes/${created.body.id}`, { name: null }, 'name', update('name'));
    await expectRefusal('PATCH', '/gateway/admin/provider-targets/tgt_unknown', { enabled: null }, 'enabled', update('enabled'));
    await expectRefusal('PATCH', '/gateway/admin/provider-targets/tgt_unknown', { models: null }, 'models', update('models'));
    expect(await h.repos.budgetNodes.findById(asOrgId(h.org.id), created.body.id)).toEqual(stored);
  });

  it('says only "<field> is required" or "<field> must not be null" for a required field, and creates nothing', async () => {
    const before = await counts();
    const cases: [string, Json | undefined, string, string][] = [
      ['/gateway/admin/budgets/nodes', { ...node, name: undefined }, 'name', 'name is required'],
      ['/gateway/admin/budgets/nodes', { ...node, name: null }, 'name', 'name must not be null'],
      ['/gateway/admin/budgets/nodes', { ...node, budget_limit: null, reset_period: 'hourly' }, 'budget_limit', 'budget_limit must not be null; reset_period must be one of the following values: daily, weekly, monthly'],
      ['/gateway/admin/budgets/nodes', {}, 'name', 'name is required; level is required; budget_limit is required; reset_period is required'],
      ['/gateway/admin/provider-targets', { name: target.name }, 'base_url', 'base_url is required'],
      ['/gateway/admin/provider-targets', { ...target, base_url: null }, 'base_url', 'base_url must not be null'],
      ['/gateway/admin/secrets', { plaintext_key: 'sk-test-12345678' }, 'provider', 'provider is required'],
      ['/gateway/admin/secrets', { provider: null, plaintext_key: 'sk-test-12345678' }, 'provider', 'provider must not be null'],
      ['/gateway/admin/policies/simulate', { replay_hours: 2 }, 'draft_policy', 'draft_policy is required'],
      ['/gateway/admin/policies/simulate', { draft_policy: null }, 'draft_policy', 'draft_policy must not be null'],
      ['/gateway/admin/policies/apply-preset', {}, 'preset', 'preset is required'],
    ];
    for (const [path, body, param, message] of cases) await expectRefusal('POST', path, body, param, message);
    expect(await counts()).toEqual(before);
  });
});
