import { AdminHarness, gatewayError, Json, startAdmin } from './admin-harness';

describe('gateway admin: policy simulation', () => {
  let h: AdminHarness;
  const ids: Record<string, string[]> = {};

  beforeAll(async () => {
    h = await startAdmin();
    let minute = Math.floor((Date.now() - 90 * 60_000) / 60_000) * 60_000;
    // All the seeded minutes on one UTC day, so the daily-budget replay is exact.
    if (new Date(minute).getUTCDate() !== new Date(minute + 3 * 60_000).getUTCDate()) minute -= 5 * 60_000;
    const at = (m: number, i: number) => new Date(minute + m * 60_000 + 1_000 + i * 100);
    const seeded = await h.seedUsage(h.org.id, [
      ...Array.from({ length: 10 }, (_, i) => ({ created_at: at(0, i) })),
      ...Array.from({ length: 3 }, (_, i) => ({ created_at: at(1, i), provider: 'anthropic', model: 'claude-sonnet-4-5' })),
      { created_at: at(2, 0), blocked_by: 'rate_limit', status_code: 429, cost: 0 },
      { created_at: at(2, 1), blocked_by: 'pii_detected', status_code: 403, cost: 0, replay: { ...replay(), pii_findings: { ssn: 1, email: 1 } } },
      { created_at: at(2, 2), replay: { ...replay(), pii_findings: { email: 2 } } },
      { created_at: at(2, 3), blocked_by: 'budget_hierarchy_exceeded', status_code: 403, cost: 0 },
      { created_at: new Date(Date.now() - 30 * 3_600_000) },
    ]);
    ids.burst = seeded.slice(0, 10).map((r) => r._id);
    ids.claude = seeded.slice(10, 13).map((r) => r._id);
    ids.rateLimited = [seeded[13]._id];
    ids.pii = [seeded[14]._id];
    ids.hierarchy = [seeded[16]._id];
    await h.seedUsage(h.other.id, Array.from({ length: 50 }, (_, i) => ({ created_at: at(0, i) })));
  });
  afterAll(() => h.stop());

  function replay() {
    return { estimated_input_tokens: 100, max_output_tokens: 256, body_bytes: 400, pii_findings: {}, safety_findings: {}, security_findings: {}, skills: [] as string[], reasoning_tokens: null };
  }
  const simulate = (body: Json, key?: string) => h.call('POST', '/gateway/admin/policies/simulate', { body, key });
  const stages = (res: Json) => Object.fromEntries((res.blocked_by_stage as Json[]).map((s) => [s.stage, s.count]));

  it('a draft lowering the RPM reports the requests stage 1 would refuse, with example ids', async () => {
    const res = await simulate({ draft_policy: { rpm_limit: 5 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ replay_hours: 24, records_replayed: 17, truncated: false });
    expect(res.body.current).toEqual({ allowed: 14, blocked: 3, needs_approval: 0 });
    expect(res.body.simulated).toEqual({ allowed: 10, blocked: 7, needs_approval: 0 });
    expect(stages(res.body)).toEqual({ '1': 5, '2.5': 1, '4': 1 });
    const rate = res.body.blocked_by_stage.find((s: Json) => s.stage === '1');
    expect(rate).toEqual({ stage: '1', name: 'Rate limit', count: 5, codes: { rate_limit: 5 }, example_request_ids: ids.burst.slice(5), replayed: true });
    expect(res.body.blocked_by_stage.find((s: Json) => s.stage === '2.5')).toMatchObject({ replayed: false, example_request_ids: ids.hierarchy });
    expect(res.body.newly_blocked).toEqual({ count: 5, example_request_ids: ids.burst.slice(5) });
    expect(res.body.newly_allowed).toEqual({ count: 1, example_request_ids: ids.rateLimited });
    expect(res.body.draft_policy).toMatchObject({ rpm_limit: 5, daily_budget: 100 });
    expect(res.body.current_policy.rpm_limit).toBe(300);
  });

  it('a draft narrowing the allowlist reports stage 5; the draft goes over the current policy', async () => {
    const res = await simulate({ draft_policy: { allowed_models: ['gpt-4o*'] } });
    expect(stages(res.body)).toEqual({ '2.5': 1, '4': 1, '5': 3 });
    expect(res.body.blocked_by_stage.find((s: Json) => s.stage === '5')).toMatchObject({ codes: { model_not_allowed: 3 }, example_request_ids: ids.claude });

    await h.call('POST', '/gateway/admin/policies', { body: { allowed_models: ['gpt-4o-mini'] } });
    const both = await simulate({ draft_policy: { rate_limit_rpm: 5 } });
    expect(stages(both.body)).toEqual({ '1': 5, '2.5': 1, '4': 1, '5': 3 });
    expect(both.body.current_policy.allowed_models).toEqual(['gpt-4o-mini']);
    await h.call('DELETE', `/gateway/admin/policies/${h.org.id}`);
  });

  it('replays PII, cost and HITL decisions from the recorded findings and estimates', async () => {
    const lenient = await simulate({ draft_policy: { pii_action: 'allow' } });
    expect(stages(lenient.body)).toEqual({ '2.5': 1 });
    expect(lenient.body.newly_allowed.example_request_ids.sort()).toEqual([...ids.rateLimited, ...ids.pii].sort());

    const capped = await simulate({ draft_policy: { max_cost_per_request: 0.0001 } });
    expect(capped.body.blocked_by_stage.find((s: Json) => s.stage === '2')).toMatchObject({ count: 17, codes: { cost_limit: 17 } });

    // Estimates of 0.001, served at 0.0005: seven fit (0.0035 spent), every later one (0.0045) does not.
    const budget = await simulate({ draft_policy: { daily_budget: 0.0042 } });
    expect(stages(budget.body)).toEqual({ '2': 10 });
    expect(budget.body.blocked_by_stage[0]).toMatchObject({ codes: { daily_budget: 10 }, example_request_ids: ids.burst.slice(7).concat(ids.claude.slice(0, 2)) });
    expect(budget.body.simulated).toEqual({ allowed: 7, blocked: 10, needs_approval: 0 });

    const approvals = await simulate({ draft_policy: { hitl_cost_threshold: 0.0005 } });
    expect(approvals.body.simulated).toEqual({ allowed: 0, blocked: 2, needs_approval: 15 });
    expect(approvals.body.needs_approval.example_request_ids).toHaveLength(5);
  });

  it('replay_hours widens the window; the organization’s records only', async () => {
    const wide = await simulate({ draft_policy: {}, replay_hours: 48 });
    expect(wide.body.records_replayed).toBe(18);
    expect(wide.body.current).toEqual({ allowed: 15, blocked: 3, needs_approval: 0 });
    expect(wide.body.simulated).toEqual({ allowed: 16, blocked: 2, needs_approval: 0 });
    const other = await simulate({ draft_policy: { rpm_limit: 5 } }, h.other.admin);
    expect(other.body).toMatchObject({ records_replayed: 50, simulated: { allowed: 5, blocked: 45, needs_approval: 0 } });
  });

  it('reads only: the live policy and the counters are untouched', async () => {
    await simulate({ draft_policy: { rpm_limit: 1, allowed_models: ['none'] } });
    expect((await h.call('GET', '/gateway/admin/policies')).body).toMatchObject({ has_custom_policy: false, effective: { rpm_limit: 300, allowed_models: [] } });
    expect((await h.call('GET', '/gateway/admin/rate-limits/status')).body).toMatchObject({ rpm_limit: 300, current_minute_count: 0 });
    expect((await h.call('GET', '/gateway/admin/usage?days=2')).body.total).toBe(18);
  });

  it.each([
    [{ replay_hours: 24 }, 'draft_policy'],
    [{ draft_policy: [1] }, 'draft_policy'],
    [{ draft_policy: { rpm_limit: 0 } }, 'draft_policy.rpm_limit'],
    [{ draft_policy: { allowed_models: [''] } }, 'draft_policy.allowed_models[0]'],
    [{ draft_policy: { bogus: 1 } }, 'draft_policy.bogus'],
    [{ draft_policy: {}, replay_hours: 0 }, 'replay_hours'],
    [{ draft_policy: {}, replay_hours: 721 }, 'replay_hours'],
    [{ draft_policy: {}, replay_hours: '24' }, 'replay_hours'],
    [{ draft_policy: {}, replay_hours: 1.5 }, 'replay_hours'],
    [{ draft_policy: {}, extra: true }, 'extra'],
    [{ draft_policy: {}, replay_hours: null }, 'replay_hours'],
    [{ draft_policy: null }, 'draft_policy'],
    [{ draft_policy: { org_id: 5 } }, 'draft_policy.org_id'],
  ])('%j is a 400 naming %s', async (body, param) => {
    expect(gatewayError(await simulate(body), 400).param).toBe(param);
  });

  it('a draft naming another organization is a 404 (like POST /policies); its own id is fine', async () => {
    expect(gatewayError(await simulate({ draft_policy: { org_id: h.other.id, rpm_limit: 5 } }), 404, 'not_found').param).toBe('draft_policy.org_id');
    expect((await simulate({ draft_policy: { org_id: h.org.id, rpm_limit: 5 } })).body).toMatchObject({ records_replayed: 17, simulated: { blocked: 7 } });
  });

  it('needs a body: an empty JSON body is a 400 naming draft_policy', async () => {
    expect(gatewayError(await h.call('POST', '/gateway/admin/policies/simulate', { rawBody: '' }), 400, 'invalid_request').param).toBe('draft_policy');
  });

  it('needs admin:read', async () => {
    expect((await simulate({ draft_policy: {} }, (await h.newKey(h.org.id, ['admin:read'])).plaintext)).status).toBe(200);
    gatewayError(await simulate({ draft_policy: {} }, (await h.newKey(h.org.id, ['billing:read'])).plaintext), 403, 'insufficient_scope');
  });
});
