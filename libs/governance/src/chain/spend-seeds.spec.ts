import { asOrgId, OrgId } from '@svc/domain';
import { createRedis, Redis, waitForRedis } from '@svc/platform';
import { periodKey } from '../counters/periods';
import { createHarness, Harness } from './governance.harness';
import { present } from './governance.fixtures';

/**
 * A budget node written mid-period carries the spend its scope already had (`spend_seed`, computed
 * by the admin service from the usage records); the node's counter starts from it when it does not
 * exist yet, so the node refuses as soon as its admin view shows it over the limit.
 */
describe.each([
  ['memory counters (the embedded mode)', false],
  ['Redis counters', true],
])('budget node counters start from the node spend seed, %s', (_name, onRedis) => {
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

  const node = (limit: number, seed: { period: string; usd: number } | null) =>
    h.db.repositories.budgetNodes.create(orgId, { name: 'cap', level: 'org', budget_limit: limit, reset_period: 'daily', spend_seed: seed });

  it('a node whose period already spent more than its limit refuses at once', async () => {
    await node(0.0005, { period: periodKey('daily', new Date()), usd: 0.0009 });
    await h.invalidation.publish('policy', orgId);
    expect((await h.service.evaluate(h.input())).blockedBy).toEqual({ stage: '2.5', code: 'budget_hierarchy_exceeded' });
  });

  it("a seed of another period is not applied (the node's new period starts at 0)", async () => {
    await node(0.0005, { period: '19990101', usd: 0.0009 });
    await h.invalidation.publish('policy', orgId);
    expect((await h.service.evaluate(h.input())).outcome).toBe('ALLOW');
  });

  it('a counter that exists is not seeded again: raising the seed later changes nothing', async () => {
    const created = await node(1, { period: periodKey('daily', new Date()), usd: 0.1 });
    await h.invalidation.publish('policy', orgId);
    const first = await h.service.evaluate(h.input());
    expect(first.outcome).toBe('ALLOW');
    await h.service.settle(present(first.reservation), 0.2);
    await h.db.repositories.budgetNodes.updateById(orgId, created._id, { budget_limit: 0.35, spend_seed: { period: periodKey('daily', new Date()), usd: 0.3 } });
    await h.invalidation.publish('policy', orgId);
    // Counted 0.1 + 0.2 = 0.3 against 0.35: still room, where a second seed would have made it 0.6.
    expect((await h.service.evaluate(h.input())).outcome).toBe('ALLOW');
  });
});
