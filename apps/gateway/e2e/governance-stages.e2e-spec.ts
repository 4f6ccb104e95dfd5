import { asOrgId, PolicyOverrides } from '@svc/domain';
import { createOrg, expectGovernanceDenial, expectGovernanceHeaders, GatewayHarness, Json, postJson, PROVIDER_KEY, startGateway, TestOrg } from './harness';

/**
 * Stages 0 (model on plan), 1.5, 1.7, 2 (monthly budget, auto-stop named budgets), 2.5 and 5.5
 * through the real HTTP surface: for each, a request that passes and one that is refused, with the
 * error fields DECISIONS.md "Gaps filled" gives and every governance header on the refusal. Each
 * test has its own organization, so spend and policies of one do not leak into another.
 */
describe('governance stages through the proxy', () => {
  let gw: GatewayHarness;
  const chatUrl = () => `${gw.url}/v1/chat/completions`;
  const auth = (key: string) => ({ 'X-SVC-API-Key': key, 'X-Provider-Key': PROVIDER_KEY });
  const chat = (content: string, extra: Json = {}) => ({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }], max_tokens: 20, ...extra });
  const send = (org: { key: string }, body: Json, url = chatUrl()) => postJson(url, body, auth(org.key));

  function allowed(res: { status: number; headers: Headers; body: Json }, orgId: string): void {
    expect({ status: res.status, error: res.body.error }).toEqual({ status: 200, error: undefined });
    expectGovernanceHeaders(res.headers, orgId);
  }

  async function policy(org: TestOrg, overrides: PolicyOverrides): Promise<void> {
    await gw.repos.policies.replace(asOrgId(org.orgId), overrides);
    await gw.service.runtime.invalidation.publish('policy', org.orgId);
  }

  beforeAll(async () => {
    gw = await startGateway({ plan: 'growth' });
  });
  afterAll(() => gw.stop());

  it('stage 0: 403 model_not_on_plan (GW_PLAN_003) for a premium model on free; the same model passes on growth', async () => {
    const free = await createOrg(gw, 'free');
    const growth = await createOrg(gw, 'growth');
    allowed(await send(free, chat('a model on the free plan')), free.orgId);
    const refused = await send(free, chat('a premium model', { model: 'o3-pro' }));
    expectGovernanceDenial(refused, { status: 403, type: 'permission_error', code: 'model_not_on_plan', gatewayCode: 'GW_PLAN_003', orgId: free.orgId });
    expect(refused.body.error.message).toContain('o3-pro');
    allowed(await send(growth, chat('a premium model', { model: 'o3-pro' })), growth.orgId);
    expect(gw.mock.requests.filter((r) => JSON.stringify(r.body ?? '').includes('a premium model'))).toHaveLength(1);
  });

  it('stage 1.5: 403 feature_not_on_plan (GW_PLAN_004) for free streaming above 4,096 max tokens; at 4,096 or without streaming it passes', async () => {
    const free = await createOrg(gw, 'free');
    const streamed = await send(free, chat('stream within the plan', { stream: true, max_tokens: 4096 }));
    allowed(streamed, free.orgId);
    expect(streamed.headers.get('content-type')).toContain('text/event-stream');
    allowed(await send(free, chat('no stream, many tokens', { max_tokens: 5000 })), free.orgId);

    const refused = await send(free, chat('stream above the plan', { stream: true, max_tokens: 5000 }));
    expectGovernanceDenial(refused, { status: 403, type: 'permission_error', code: 'feature_not_on_plan', gatewayCode: 'GW_PLAN_004', orgId: free.orgId });
    expect(refused.body.error.param).toBe('max_tokens');
    expect(refused.headers.get('content-type')).toContain('application/json');

    const growth = await createOrg(gw, 'growth');
    allowed(await send(growth, chat('stream above the free plan', { stream: true, max_tokens: 5000 })), growth.orgId);
  });

  it('stage 1.7: 403 reasoning_cap_exceeded (GW_REASONING_001) above max_reasoning_tokens, in both formats; within the cap it passes', async () => {
    const org = await createOrg(gw, 'growth');
    await policy(org, { max_reasoning_tokens: 2000 });
    allowed(await send(org, { model: 'o3-mini', messages: [{ role: 'user', content: 'think a little' }], max_completion_tokens: 1500 }), org.orgId);
    allowed(await send(org, { model: 'o3-mini', messages: [{ role: 'user', content: 'think briefly' }], reasoning_effort: 'minimal' }), org.orgId);

    const completion = await send(org, { model: 'o3-mini', messages: [{ role: 'user', content: 'think a lot' }], max_completion_tokens: 3000 });
    expectGovernanceDenial(completion, { status: 403, type: 'permission_error', code: 'reasoning_cap_exceeded', gatewayCode: 'GW_REASONING_001', orgId: org.orgId });
    expect(completion.body.error).toMatchObject({ param: 'max_completion_tokens' });
    expect(completion.body.error.message).toContain('2000');

    const effort = await send(org, { model: 'o3-mini', messages: [{ role: 'user', content: 'think hard' }], reasoning_effort: 'high' });
    expectGovernanceDenial(effort, { status: 403, type: 'permission_error', code: 'reasoning_cap_exceeded', gatewayCode: 'GW_REASONING_001', orgId: org.orgId });
    expect(effort.body.error.param).toBe('reasoning_effort');
    // The effort the client sent, what it counts as, and the field, each said once.
    expect(effort.body.error.message).toBe("The request asks for reasoning effort high (32768 tokens) in reasoning_effort, above the organization's reasoning cap of 2000 tokens.");

    const messages = `${gw.url}/v1/messages`;
    const thinking = (budget: number) => ({ model: 'claude-sonnet-4-6', max_tokens: budget + 100, thinking: { type: 'enabled', budget_tokens: budget }, messages: [{ role: 'user', content: 'ponder' }] });
    allowed(await send(org, thinking(1024), messages), org.orgId);
    const anthropic = await send(org, thinking(4096), messages);
    expectGovernanceDenial(anthropic, { status: 403, type: 'permission_error', code: 'reasoning_cap_exceeded', gatewayCode: 'GW_REASONING_001', orgId: org.orgId });
    expect(anthropic.body.error.param).toBe('thinking.budget_tokens');
  });

  it('stage 2: 403 monthly_budget (GW_COST_003) when the month cannot take the estimate; under it the request passes', async () => {
    const org = await createOrg(gw, 'growth');
    await policy(org, { monthly_budget: 5 });
    allowed(await send(org, chat('within the month')), org.orgId);
    await policy(org, { monthly_budget: 0.000001 });
    const refused = await send(org, chat('past the month'));
    expectGovernanceDenial(refused, { status: 403, type: 'permission_error', code: 'monthly_budget', gatewayCode: 'GW_COST_003', orgId: org.orgId });
    // The daily budget (the growth default) is not what refused it.
    expect(refused.headers.get('x-svc-daily-budget')).toBe('100');
  });

  it('stage 2: a daily named budget with auto_stop refuses with 403 daily_budget once its limit is reached; without auto_stop it does not', async () => {
    const org = await createOrg(gw, 'growth');
    await gw.repos.namedBudgets.create(asOrgId(org.orgId), { name: 'Watch only', type: 'daily', limit: 0.000001, auto_stop: false });
    await gw.service.runtime.invalidation.publish('policy', org.orgId);
    allowed(await send(org, chat('first request of the day')), org.orgId);
    allowed(await send(org, chat('a budget without auto_stop never refuses')), org.orgId);

    await gw.repos.namedBudgets.create(asOrgId(org.orgId), { name: 'Daily stop', type: 'daily', limit: 0.000001, auto_stop: true });
    await gw.service.runtime.invalidation.publish('policy', org.orgId);
    // The two requests above spent more than the limit (settled when their responses ended).
    let refused = await send(org, chat('after the limit'));
    for (let i = 0; i < 20 && refused.status === 200; i++) {
      await new Promise((r) => setTimeout(r, 50));
      refused = await send(org, chat(`after the limit ${i}`));
    }
    expectGovernanceDenial(refused, { status: 403, type: 'permission_error', code: 'daily_budget', gatewayCode: 'GW_COST_002', orgId: org.orgId });
    expect(refused.body.error.message).toContain('Daily stop');
    expect(Number(refused.headers.get('x-svc-daily-cost'))).toBeGreaterThan(0);
  });

  it('stage 2.5: 403 budget_hierarchy_exceeded (GW_BUDGET_HIERARCHY_001) from the org, team or key node; other branches pass', async () => {
    const org = await createOrg(gw, 'growth');
    const repos = gw.repos.budgetNodes;
    const id = asOrgId(org.orgId);
    const teamA = await org.newKey({ teamId: 'team_a' });
    const teamB = await org.newKey({ teamId: 'team_b' });
    const root = await repos.create(id, { name: 'Company', level: 'org', budget_limit: 100, reset_period: 'monthly' });
    await repos.create(id, { name: 'Team A', level: 'team', team_id: 'team_a', parent_id: root._id, budget_limit: 0.000001, reset_period: 'daily' });
    const b = await repos.create(id, { name: 'Team B', level: 'team', team_id: 'team_b', parent_id: root._id, budget_limit: 100, reset_period: 'weekly' });
    await repos.create(id, { name: 'Key B', level: 'key', team_id: 'team_b', key_id: teamB.keyId, parent_id: b._id, budget_limit: 0.000001, reset_period: 'daily' });
    await gw.service.runtime.invalidation.publish('policy', org.orgId);

    // No team and no key node: only the org node applies, and it has room.
    allowed(await send(org, chat('charged to the org node only')), org.orgId);
    const team = await send(teamA, chat('charged to team A'));
    expectGovernanceDenial(team, { status: 403, type: 'permission_error', code: 'budget_hierarchy_exceeded', gatewayCode: 'GW_BUDGET_HIERARCHY_001', orgId: org.orgId });
    expect(team.body.error.message).toContain('team budget "Team A"');
    const key = await send(teamB, chat('charged to key B'));
    expectGovernanceDenial(key, { status: 403, type: 'permission_error', code: 'budget_hierarchy_exceeded', gatewayCode: 'GW_BUDGET_HIERARCHY_001', orgId: org.orgId });
    expect(key.body.error.message).toContain('key budget "Key B"');
    // Another key of team B has no key node: team B's node has room.
    const otherB = await org.newKey({ teamId: 'team_b' });
    allowed(await send(otherB, chat('charged to team B')), org.orgId);

    const small = await createOrg(gw, 'growth');
    await repos.create(asOrgId(small.orgId), { name: 'Tiny company', level: 'org', budget_limit: 0.000001, reset_period: 'monthly' });
    await gw.service.runtime.invalidation.publish('policy', small.orgId);
    const whole = await send(small, chat('charged to a tiny org node'));
    expectGovernanceDenial(whole, { status: 403, type: 'permission_error', code: 'budget_hierarchy_exceeded', gatewayCode: 'GW_BUDGET_HIERARCHY_001', orgId: small.orgId });
    expect(whole.body.error.message).toContain('org budget "Tiny company"');
    expect(gw.mock.requests.filter((r) => JSON.stringify(r.body ?? '').includes('charged to'))).toHaveLength(2);
  });

  it('stage 5.5: 403 skill_not_allowed (GW_SKILL_001) for a tool outside allowed_skills, in both formats; allowed tools pass', async () => {
    const org = await createOrg(gw, 'growth');
    await policy(org, { allowed_skills: ['get_weather'] });
    const tool = (name: string) => ({ type: 'function', function: { name, description: name, parameters: { type: 'object', properties: {} } } });
    allowed(await send(org, chat('weather please', { tools: [tool('get_weather')] })), org.orgId);
    allowed(await send(org, chat('no tools at all')), org.orgId);

    const refused = await send(org, chat('clean up', { tools: [tool('get_weather'), tool('delete_files')] }));
    expectGovernanceDenial(refused, { status: 403, type: 'permission_error', code: 'skill_not_allowed', gatewayCode: 'GW_SKILL_001', orgId: org.orgId });
    expect(refused.body.error).toMatchObject({ param: 'tools' });
    expect(refused.body.error.message).toContain('delete_files');
    expect(refused.body.error.message).not.toContain('get_weather');

    const messages = `${gw.url}/v1/messages`;
    const anthropic = (name: string) => ({ model: 'claude-sonnet-4-6', max_tokens: 20, tools: [{ name, input_schema: { type: 'object', properties: {} } }], messages: [{ role: 'user', content: 'use a tool' }] });
    allowed(await send(org, anthropic('get_weather'), messages), org.orgId);
    const b = await send(org, anthropic('run_shell'), messages);
    expectGovernanceDenial(b, { status: 403, type: 'permission_error', code: 'skill_not_allowed', gatewayCode: 'GW_SKILL_001', orgId: org.orgId });

    await policy(org, { allowed_skills: [] });
    allowed(await send(org, chat('any tool once the list is empty', { tools: [tool('delete_files')] })), org.orgId);
  });
});
