import { asOrgId, OrgId, UsageRecordEntity } from '@svc/domain';
import { createRedis, Redis, waitForRedis } from '@svc/platform';
import { createHarness, Harness } from './governance.harness';
import { present } from './governance.fixtures';

let sequence = 0;

/** A served request's usage record: what the gateway files after the answer. */
function spent(orgId: string, cost: number, fields: Partial<UsageRecordEntity> = {}): UsageRecordEntity {
  return {
    _id: `gw_seed${++sequence}`,
    org_id: orgId,
    key_id: 'key_test',
    team_id: null,
    provider: 'openai',
    model: 'gpt-4o-mini',
    endpoint: '/v1/chat/completions',
    stream: false,
    status_code: 200,
    blocked_by: null,
    input_tokens: 10,
    output_tokens: 10,
    estimated_cost: cost,
    cost,
    latency_ms: 5,
    upstream_latency_ms: 4,
    governance_ms: 0.2,
    agent: 'seed',
    runner_id: null,
    session_id: null,
    created_at: new Date(),
    replay: { estimated_input_tokens: 10, max_output_tokens: 10, body_bytes: 100, pii_findings: {}, safety_findings: {}, security_findings: {}, skills: [], reasoning_tokens: null },
    ...fields,
  };
}

/**
 * Budget counters start from the spend already recorded in their period when they do not exist
 * yet: counters lost (the embedded mode's restart, Redis data lost, the memory fallback) or a
 * budget node created mid-period no longer count from 0.
 */
describe.each([
  ['memory counters (the embedded mode)', false],
  ['Redis counters', true],
])('budget counters seeded from recorded spend, %s', (_name, onRedis) => {
  let redis: Redis | null = null;
  let h: Harness;
  let orgId: OrgId;
  beforeAll(async () => {
    if (!onRedis) return;
    redis = createRedis(process.env.TEST_REDIS_URL as string, 'hot-path', 'spend-seeds-test');
    await waitForRedis(redis);
  });
  afterAll(() => redis?.quit());
  beforeEach(async () => {
    h = await createHarness({ redis });
    orgId = asOrgId(h.org._id);
  });
  afterEach(() => h.close());

  it('a daily budget already spent (records only, no counter) refuses at once, and the header shows the spend', async () => {
    await h.db.repositories.usage.recordBatch([spent(orgId, 0.6), spent(orgId, 0.5)]);
    await h.setPolicy({ daily_budget: 1 });
    const refused = await h.service.evaluate(h.input());
    expect(refused.blockedBy).toEqual({ stage: '2', code: 'daily_budget' });
    expect(refused.headers['X-SVC-Daily-Cost']).toBe('1.1');
  });

  it('yesterday and other organizations do not count; this month counts toward the monthly budget', async () => {
    const yesterday = new Date(Date.now() - 86_400_000);
    const other = await h.newOrg();
    await h.db.repositories.usage.recordBatch([spent(orgId, 5, { created_at: yesterday }), spent(other.org._id, 5), spent(orgId, 0.25)]);
    await h.setPolicy({ daily_budget: 1, monthly_budget: 1000 });
    const allowed = await h.service.evaluate(h.input());
    expect(allowed.outcome).toBe('ALLOW');
    expect(allowed.headers['X-SVC-Daily-Cost']).toBe('0.25');
    const monthSpent = yesterday.getUTCMonth() === new Date().getUTCMonth() ? 5.25 : 0.25;
    await h.setPolicy({ monthly_budget: monthSpent - 0.01 });
    // The month counter exists now (the admit above created it from the same seed): it refuses.
    expect((await h.service.evaluate(h.input())).blockedBy?.code).toBe('monthly_budget');
  });

  it('a budget node created mid-period starts from what its scope spent, as its admin view shows', async () => {
    await h.db.repositories.usage.recordBatch([spent(orgId, 0.0009)]);
    // Counters exist before the node: the organization has been served today.
    const before = await h.service.evaluate(h.input());
    await h.service.settle(present(before.reservation), 0.0001);
    await h.db.repositories.budgetNodes.create(orgId, { name: 'org cap', level: 'org', budget_limit: 0.0005, reset_period: 'daily' });
    await h.invalidation.publish('policy', orgId);
    const refused = await h.service.evaluate(h.input());
    expect(refused.blockedBy).toEqual({ stage: '2.5', code: 'budget_hierarchy_exceeded' });
  });

  it('a key node counts its key, not the rest of the organization', async () => {
    await h.db.repositories.usage.recordBatch([spent(orgId, 0.5, { key_id: 'key_other' }), spent(orgId, 0.0002)]);
    await h.db.repositories.budgetNodes.create(orgId, { name: 'key cap', level: 'key', key_id: 'key_test', budget_limit: 0.01, reset_period: 'monthly' });
    await h.invalidation.publish('policy', orgId);
    expect((await h.service.evaluate(h.input())).outcome).toBe('ALLOW');
  });

  it('a counter that exists is not seeded again: spend recorded after it is counted once, by its settle', async () => {
    await h.setPolicy({ daily_budget: 1 });
    const first = await h.service.evaluate(h.input());
    await h.service.settle(present(first.reservation), 0.4);
    await h.db.repositories.usage.recordBatch([spent(orgId, 0.4)]); // the record of that same request
    h.service.invalidate(orgId); // seeds read again
    const next = await h.service.evaluate(h.input());
    expect(next.outcome).toBe('ALLOW');
    expect(next.headers['X-SVC-Daily-Cost']).toBe('0.4');
  });
});
