import { ProfileCache } from '@svc/governance';
import { InvalidationBus } from '@svc/platform';
import { BudgetWorld, openBudgetWorld } from '../testing/budget-fixtures';
import { BudgetsService } from './budgets.service';

describe('BudgetsService: writes reach the gateway at once, PUT keeps crossed alerts', () => {
  let world: BudgetWorld;
  let invalidation: InvalidationBus;
  let service: BudgetsService;
  let gatewayCache: ProfileCache;
  beforeAll(async () => {
    world = await openBudgetWorld();
    invalidation = new InvalidationBus(null, world.logger);
    service = new BudgetsService(world.repositories, invalidation, world.evaluator());
    // The gateway's cache of each organization's policy and auto-stop budgets; a TTL far beyond the test.
    gatewayCache = new ProfileCache(world.repositories, invalidation, { ttlMs: 10 * 60_000 });
  });
  afterAll(async () => {
    gatewayCache.close();
    await invalidation.close();
    await world.close();
  });

  it('publishes policy for the organization on create, update and delete', async () => {
    const orgId = await world.newOrg();
    const published: string[] = [];
    const off = invalidation.subscribe('policy', (id) => published.push(id));
    expect((await gatewayCache.getById(orgId)).autoStopBudgets).toEqual([]);

    const created = await service.create(orgId, { name: 'Stop', type: 'daily', limit: 5, auto_stop: true });
    expect((await gatewayCache.getById(orgId)).autoStopBudgets).toEqual([{ id: created.id, name: 'Stop', limit: 5 }]);
    await service.update(orgId, created.id, { limit: 7 });
    expect((await gatewayCache.getById(orgId)).autoStopBudgets).toEqual([{ id: created.id, name: 'Stop', limit: 7 }]);
    await service.update(orgId, created.id, { auto_stop: false });
    expect((await gatewayCache.getById(orgId)).autoStopBudgets).toEqual([]);
    await service.update(orgId, created.id, { auto_stop: true });
    await service.remove(orgId, created.id);
    expect((await gatewayCache.getById(orgId)).autoStopBudgets).toEqual([]);
    expect(published).toEqual([orgId, orgId, orgId, orgId, orgId]);
    // Reads and empty updates change nothing on the gateway side.
    const kept = await service.create(orgId, { name: 'Kept', limit: 1 });
    await service.get(orgId, kept.id);
    await service.update(orgId, kept.id, {});
    expect(published).toHaveLength(6);
    off();
  });

  it('PUT with alerts keeps the triggered state of unchanged thresholds (no second notification)', async () => {
    const orgId = await world.newOrg();
    await world.spend(orgId, 6);
    const created = await service.create(orgId, { name: 'Monthly', limit: 10, alerts: [{ threshold: 50, channels: ['webhook'] }] });
    expect(created.alerts[0]).toMatchObject({ triggered: true });
    const triggeredAt = created.alerts[0].triggered_at;
    const before = world.publisher.ofType('budget.warning').filter((event) => event.orgid === orgId);
    expect(before).toHaveLength(1);

    const updated = await service.update(orgId, created.id, {
      alerts: [
        { threshold: 50, channels: ['webhook', 'email'] },
        { threshold: 60, channels: ['webhook'] },
      ],
    });
    expect(updated.alerts).toEqual([
      { threshold: 50, channels: ['webhook', 'email'], triggered: true, triggered_at: triggeredAt },
      { threshold: 60, channels: ['webhook'], triggered: true, triggered_at: expect.any(String) },
    ]);
    const after = world.publisher.ofType('budget.warning').filter((event) => event.orgid === orgId);
    expect(after.map((event) => event.data.threshold_pct)).toEqual([50, 60]);
  });
});
