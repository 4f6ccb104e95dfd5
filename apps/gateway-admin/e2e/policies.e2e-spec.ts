import { AdminHarness, gatewayError, startAdmin } from './admin-harness';

const MB = 1024 * 1024;

describe('gateway admin: policies', () => {
  let h: AdminHarness;
  beforeAll(async () => {
    h = await startAdmin();
  });
  afterAll(() => h.stop());
  afterEach(async () => {
    await h.call('DELETE', `/gateway/admin/policies/${h.org.id}`);
  });

  it('GET shows the tier defaults when the organization has no policy', async () => {
    const res = await h.call('GET', '/gateway/admin/policies');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ org_id: h.org.id, tier: 'growth', custom: {}, overridden_fields: [], has_custom_policy: false, preset: null });
    expect(res.body.effective).toEqual(res.body.tier_defaults);
    expect(res.body.tier_defaults).toMatchObject({ rpm_limit: 300, daily_budget: 100, monthly_budget: 2000, max_cost_per_request: 2, hitl_cost_threshold: 10, max_body_bytes: 50 * MB });
  });

  it('POST creates (201) then replaces (200) the policy; rate_limit_rpm is an alias of rpm_limit', async () => {
    const created = await h.call('POST', '/gateway/admin/policies', { body: { rate_limit_rpm: 120, allowed_models: ['gpt-4o-mini', ' gpt-4o-mini '], pii_action: 'FLAG' } });
    expect(created.status).toBe(201);
    expect(created.body.custom).toEqual({ rpm_limit: 120, allowed_models: ['gpt-4o-mini'], pii_action: 'flag' });
    expect(created.body.effective).toMatchObject({ rpm_limit: 120, daily_budget: 100, allowed_models: ['gpt-4o-mini'], pii_action: 'flag' });
    expect(created.body.tier_defaults.rpm_limit).toBe(300);
    expect(created.body.overridden_fields.sort()).toEqual(['allowed_models', 'pii_action', 'rpm_limit']);

    const replaced = await h.call('POST', '/gateway/admin/policies', { body: { daily_budget: 12.5, max_body_bytes: 200 * MB } });
    expect(replaced.status).toBe(200);
    expect(replaced.body.custom).toEqual({ daily_budget: 12.5, max_body_bytes: 200 * MB });
    expect(replaced.body.effective).toMatchObject({ rpm_limit: 300, daily_budget: 12.5, allowed_models: [], max_body_bytes: 200 * MB });
    expect((await h.call('GET', '/gateway/admin/policies')).body.custom).toEqual({ daily_budget: 12.5, max_body_bytes: 200 * MB });
  });

  it.each([
    [{ rpm_limit: 0 }, 'rpm_limit'],
    [{ rpm_limit: '10' }, 'rpm_limit'],
    [{ rpm_limit: 1.5 }, 'rpm_limit'],
    [{ rate_limit_rpm: -3 }, 'rate_limit_rpm'],
    [{ rpm_limit: 10, rate_limit_rpm: 20 }, 'rate_limit_rpm'],
    [{ daily_budget: -1 }, 'daily_budget'],
    [{ monthly_budget: 'lots' }, 'monthly_budget'],
    [{ max_cost_per_request: null }, 'max_cost_per_request'],
    [{ hitl_cost_threshold: -0.01 }, 'hitl_cost_threshold'],
    [{ pii_scan_enabled: 'yes' }, 'pii_scan_enabled'],
    [{ pii_action: 'shred' }, 'pii_action'],
    [{ allowed_models: 'gpt-4o' }, 'allowed_models'],
    [{ allowed_models: ['ok', ''] }, 'allowed_models[1]'],
    [{ allowed_skills: [42] }, 'allowed_skills[0]'],
    [{ max_body_bytes: 200 * MB + 1 }, 'max_body_bytes'],
    [{ max_body_bytes: 0 }, 'max_body_bytes'],
    [{ max_reasoning_tokens: 0 }, 'max_reasoning_tokens'],
    [{ budget_warning_thresholds: [50, 150] }, 'budget_warning_thresholds[1]'],
    [{ surprise: true }, 'surprise'],
    [{ org_id: 5, rpm_limit: 10 }, 'org_id'],
    [{ org_id: null }, 'org_id'],
  ])('POST %j is a 400 naming %s', async (body, param) => {
    const error = gatewayError(await h.call('POST', '/gateway/admin/policies', { body }), 400, 'invalid_request');
    expect(error).toMatchObject({ type: 'invalid_request_error', param });
    expect((await h.call('GET', '/gateway/admin/policies')).body.has_custom_policy).toBe(false);
  });

  it('names every rejected field at once, and refuses a body that is not an object', async () => {
    const error = gatewayError(await h.call('POST', '/gateway/admin/policies', { body: { rpm_limit: 0, daily_budget: -1 } }), 400);
    expect(error.message).toContain('rpm_limit');
    expect(error.message).toContain('daily_budget');
    // As on every route with body fields (docs/admin-api-access.md "Bodies"): 400 naming `body`.
    for (const body of [[1, 2], null, 'rpm_limit=5', 5]) {
      const refused = gatewayError(await h.call('POST', '/gateway/admin/policies', { body }), 400, 'invalid_request');
      expect(refused).toMatchObject({ type: 'invalid_request_error', param: 'body', message: 'The request body must be a JSON object' });
    }
    // The JSON content type with an empty body is no body: these routes need one.
    expect(gatewayError(await h.call('POST', '/gateway/admin/policies', { rawBody: '' }), 400, 'invalid_request')).toMatchObject({ param: 'body', message: expect.stringMatching(/JSON object/) });
    expect(gatewayError(await h.call('POST', '/gateway/admin/policies/apply-preset', { rawBody: '' }), 400, 'invalid_request').param).toBe('preset');
    expect((await h.call('GET', '/gateway/admin/policies')).body.has_custom_policy).toBe(false);
  });

  it('applies a change on the next request: the live chain sees the new RPM at once', async () => {
    expect((await h.call('GET', '/gateway/admin/rate-limits/status')).body.rpm_limit).toBe(300);
    await h.call('POST', '/gateway/admin/policies', { body: { rpm_limit: 7 } });
    expect((await h.call('GET', '/gateway/admin/rate-limits/status')).body.rpm_limit).toBe(7);
    await h.call('DELETE', `/gateway/admin/policies/${h.org.id}`);
    expect((await h.call('GET', '/gateway/admin/rate-limits/status')).body.rpm_limit).toBe(300);
  });

  it('DELETE reverts to the tier defaults; another organization’s id is a 404', async () => {
    await h.call('POST', '/gateway/admin/policies', { body: { rpm_limit: 9 } });
    await h.call('POST', '/gateway/admin/policies', { key: h.other.admin, body: { rpm_limit: 11 } });
    expect(gatewayError(await h.call('DELETE', `/gateway/admin/policies/${h.other.id}`), 404, 'not_found').param).toBe('org_id');
    expect((await h.call('GET', '/gateway/admin/policies', { key: h.other.admin })).body.custom).toEqual({ rpm_limit: 11 });

    const deleted = await h.call('DELETE', `/gateway/admin/policies/${h.org.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ deleted: true, has_custom_policy: false, custom: {} });
    expect(deleted.body.effective).toEqual(deleted.body.tier_defaults);
    expect((await h.call('DELETE', `/gateway/admin/policies/${h.org.id}`)).body.deleted).toBe(false);
    await h.call('DELETE', `/gateway/admin/policies/${h.other.id}`, { key: h.other.admin });
  });

  it('POST with another organization’s org_id is a 404', async () => {
    const error = gatewayError(await h.call('POST', '/gateway/admin/policies', { body: { org_id: h.other.id, rpm_limit: 5 } }), 404, 'not_found');
    expect(error.param).toBe('org_id');
    expect((await h.call('POST', '/gateway/admin/policies', { body: { org_id: h.org.id, rpm_limit: 5 } })).status).toBe(201);
  });

  it('apply-preset sets the tier limits, keeps the other overrides and accepts the legacy names', async () => {
    await h.call('POST', '/gateway/admin/policies', { body: { allowed_models: ['gpt-4o'], rpm_limit: 99 } });
    const free = await h.call('POST', '/gateway/admin/policies/apply-preset', { body: { preset: 'free' } });
    expect(free.status).toBe(200);
    expect(free.body).toMatchObject({ preset: 'free', tier: 'growth' });
    expect(free.body.effective).toMatchObject({ rpm_limit: 10, max_cost_per_request: 0.25, daily_budget: 10, monthly_budget: 50, hitl_cost_threshold: 1, max_body_bytes: MB, allowed_models: ['gpt-4o'] });

    const pro = await h.call('POST', '/gateway/admin/policies/apply-preset', { body: { preset: 'pro' } });
    expect(pro.body).toMatchObject({ preset: 'starter', effective: { rpm_limit: 60, daily_budget: 25 } });
    const team = await h.call('POST', '/gateway/admin/policies/apply-preset', { body: { preset: 'Team' } });
    expect(team.body).toMatchObject({ preset: 'growth', effective: { rpm_limit: 300, monthly_budget: 2000 } });
    const enterprise = await h.call('POST', '/gateway/admin/policies/apply-preset', { body: { preset: 'enterprise' } });
    expect(enterprise.body.effective).toMatchObject({ rpm_limit: 5000, max_body_bytes: 100 * MB, allowed_models: ['gpt-4o'] });
  });

  it('apply-preset refuses unknown and missing presets', async () => {
    expect(gatewayError(await h.call('POST', '/gateway/admin/policies/apply-preset', { body: { preset: 'platinum' } }), 400).param).toBe('preset');
    expect(gatewayError(await h.call('POST', '/gateway/admin/policies/apply-preset', { body: {} }), 400).param).toBe('preset');
    expect(gatewayError(await h.call('POST', '/gateway/admin/policies/apply-preset', { body: { preset: 'free', extra: 1 } }), 400).param).toBe('extra');
  });

  it('needs admin:read to read and admin:write to change (keys and dashboard roles)', async () => {
    const reader = await h.newKey(h.org.id, ['admin:read']);
    const billing = await h.newKey(h.org.id, ['billing:read']);
    expect((await h.call('GET', '/gateway/admin/policies', { key: reader.plaintext })).status).toBe(200);
    gatewayError(await h.call('GET', '/gateway/admin/policies', { key: billing.plaintext }), 403, 'insufficient_scope');
    for (const [method, path, body] of [
      ['POST', '/gateway/admin/policies', { rpm_limit: 5 }],
      ['DELETE', `/gateway/admin/policies/${h.org.id}`, undefined],
      ['POST', '/gateway/admin/policies/apply-preset', { preset: 'free' }],
    ] as const) {
      gatewayError(await h.call(method, path, { key: reader.plaintext, body }), 403, 'insufficient_scope');
      gatewayError(await h.call(method, path, { token: h.token(h.org.id, 'Member'), body }), 403, 'insufficient_scope');
    }
    expect((await h.call('GET', '/gateway/admin/policies', { token: h.token(h.org.id, 'Member') })).status).toBe(200);
    expect((await h.call('POST', '/gateway/admin/policies', { token: h.token(h.org.id, 'Admin'), body: { rpm_limit: 5 } })).status).toBe(201);
    gatewayError(await h.call('GET', '/gateway/admin/policies', { key: 'svc_sk_not_a_real_key' }), 401);
  });
});
