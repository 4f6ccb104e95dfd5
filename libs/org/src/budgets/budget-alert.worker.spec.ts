import { BudgetAlertWorker } from './budget-alert.worker';
import { BudgetWorld, openBudgetWorld } from '../testing/budget-fixtures';

describe('BudgetAlertWorker: named-budget alerts as spend accrues', () => {
  let world: BudgetWorld;
  const workers: BudgetAlertWorker[] = [];
  const worker = (intervalMs = 0) => {
    const created = new BudgetAlertWorker(world.repositories, world.evaluator(), { BUDGET_ALERT_CHECK_INTERVAL_MS: intervalMs }, world.logger);
    workers.push(created);
    return created;
  };
  const warnings = (orgId: string) => world.publisher.ofType('budget.warning').filter((event) => event.orgid === orgId);

  beforeAll(async () => {
    world = await openBudgetWorld();
  });
  afterAll(async () => {
    for (const w of workers) await w.onModuleDestroy();
    await world.close();
  });

  it('notifies once per threshold when spend crosses it, with no read of the budget, across racing replicas', async () => {
    const orgId = await world.newOrg();
    const budget = await world.budget(orgId, {
      name: 'Daily',
      type: 'daily',
      limit: 10,
      alerts: [
        { threshold: 20, channels: ['webhook'] },
        { threshold: 50, channels: ['webhook'] },
      ],
    });
    const replicas = [worker(), worker(), worker()];
    await world.spend(orgId, 3);
    await Promise.all(replicas.map((replica) => replica.check()));
    expect(warnings(orgId).map((event) => event.data)).toEqual([
      { budget_type: 'daily', threshold_pct: 20, spent: 3, budget: 10, utilization_pct: 30, timestamp: expect.any(String), budget_id: budget._id, budget_name: 'Daily' },
    ]);
    expect((await world.repositories.namedBudgets.findById(orgId, budget._id))?.alerts.map((a) => a.triggered)).toEqual([true, false]);

    await Promise.all(replicas.map((replica) => replica.check()));
    expect(warnings(orgId)).toHaveLength(1);

    await world.spend(orgId, 3);
    await Promise.all(replicas.map((replica) => replica.check()));
    expect(warnings(orgId).map((event) => event.data.threshold_pct)).toEqual([20, 50]);
    expect(replicas.every((replica) => replica.lastCheck !== null)).toBe(true);
  });

  it('a replica and a read racing on one threshold still notify once', async () => {
    const orgId = await world.newOrg();
    const budget = await world.budget(orgId, { name: 'Monthly', limit: 4, alerts: [{ threshold: 50, channels: ['webhook'] }] });
    await world.spend(orgId, 2.5);
    const [fromWorker, fromRead] = await Promise.all([worker().check(), world.evaluator().evaluate(orgId, [budget])]);
    expect(fromWorker.notified + fromRead[0].notified.length).toBe(1);
    expect(fromRead[0].alerts[0]).toMatchObject({ threshold: 50, triggered: true, triggered_at: expect.any(Date) });
    expect(warnings(orgId)).toHaveLength(1);
  });

  it('re-arms an alert in the next period and resets it when spend is below it', async () => {
    const orgId = await world.newOrg();
    await world.budget(orgId, { name: 'Daily', type: 'daily', limit: 10, alerts: [{ threshold: 50, channels: ['webhook'] }] });
    const day1 = new Date(Date.UTC(2031, 0, 1, 12));
    const day2 = new Date(Date.UTC(2031, 0, 2, 12));
    const evaluator = world.evaluator();
    await world.spend(orgId, 6, day1);
    expect((await evaluator.evaluateOrganization(orgId, day1))[0].notified).toHaveLength(1);
    // The next day starts at zero: the alert of yesterday counts as reset.
    const quiet = (await evaluator.evaluateOrganization(orgId, day2))[0];
    expect(quiet).toMatchObject({ current: 0, notified: [] });
    expect(quiet.alerts[0]).toMatchObject({ triggered: false, triggered_at: null });
    await world.spend(orgId, 7, day2);
    const again = (await evaluator.evaluateOrganization(orgId, day2))[0];
    expect(again.notified).toHaveLength(1);
    expect(again.alerts[0]).toMatchObject({ triggered: true, triggered_at: day2 });
    // Even when no evaluation saw the quiet start of the day, yesterday's alert fires again today.
    const day3 = new Date(Date.UTC(2031, 0, 3, 12));
    await world.spend(orgId, 9, day3);
    expect((await evaluator.evaluateOrganization(orgId, day3))[0].notified).toHaveLength(1);
  });

  it('runs by itself every interval, and not at all with 0', async () => {
    const orgId = await world.newOrg();
    await world.budget(orgId, { name: 'Weekly', type: 'weekly', limit: 1, alerts: [{ threshold: 80, channels: ['webhook'] }] });
    const off = worker(0);
    off.onModuleInit();
    await world.spend(orgId, 0.9);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(off.lastCheck).toBeNull();
    expect(warnings(orgId)).toHaveLength(0);
    const on = worker(40);
    on.onModuleInit();
    const deadline = Date.now() + 3_000;
    while ((warnings(orgId).length === 0 || on.lastCheck === null) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(warnings(orgId).map((event) => event.data)).toEqual([expect.objectContaining({ budget_type: 'weekly', threshold_pct: 80, spent: 0.9 })]);
    expect(on.lastCheck).not.toBeNull();
  });

  it('leaves organizations without recent spend and budgets without alerts alone', async () => {
    const idle = await world.newOrg();
    await world.budget(idle, { name: 'Idle', type: 'daily', limit: 1, alerts: [{ threshold: 10, channels: ['webhook'] }] });
    await world.spend(idle, 5, new Date(Date.now() - 3 * 24 * 3_600_000));
    const silent = await world.newOrg();
    await world.budget(silent, { name: 'No alerts', type: 'daily', limit: 1 });
    await world.spend(silent, 5);
    const check = await worker().check();
    expect(check.notified).toBe(0);
    expect(warnings(idle)).toHaveLength(0);
    expect(warnings(silent)).toHaveLength(0);
  });
});
