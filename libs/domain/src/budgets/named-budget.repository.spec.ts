import { storeTargets } from '../testing/stores';
import { expectTenantIsolation, ORG_A, ORG_B, useRepository } from '../testing/jest-helpers';
import { NamedBudgetRepository } from './named-budget.repository';

describe.each(storeTargets(process.env.MONGODB_URI))('NamedBudgetRepository ($name)', (target) => {
  const t = useRepository(target, (store) => new NamedBudgetRepository(store));

  it('creates a budget: monthly by default, alerts untriggered', async () => {
    const created = await t.repo.create(ORG_A, { name: 'Team', limit: 500, alerts: [{ threshold: 80, channels: ['email', 'webhook'] }] });
    expect(created).toMatchObject({
      name: 'Team',
      type: 'monthly',
      limit: 500,
      auto_stop: false,
      alerts: [{ threshold: 80, channels: ['email', 'webhook'], triggered: false, triggered_at: null }],
    });
    expect(created._id).toMatch(/^budget_/);
  });

  it('lists daily auto-stop budgets and pages all budgets newest first', async () => {
    const day = (d: number) => new Date(Date.UTC(2030, 0, d));
    await t.repo.create(ORG_A, { name: 'daily stop', type: 'daily', limit: 10, auto_stop: true }, day(1));
    await t.repo.create(ORG_A, { name: 'daily', type: 'daily', limit: 10 }, day(2));
    await t.repo.create(ORG_A, { name: 'monthly', limit: 10 }, day(3));
    expect((await t.repo.listAutoStop(ORG_A)).map((b) => b.name)).toEqual(['daily stop']);
    const page = await t.repo.list(ORG_A, { offset: 0, limit: 2 });
    expect(page.total).toBe(3);
    expect(page.items.map((b) => b.name)).toEqual(['monthly', 'daily']);
    expect((await t.repo.listAll(ORG_A)).map((b) => b.name)).toEqual(['daily stop', 'daily', 'monthly']);
  });

  it('updates only the sent fields', async () => {
    const created = await t.repo.create(ORG_A, { name: 'Team', limit: 500 });
    const updated = await t.repo.updateById(ORG_A, created._id, { limit: 750, name: undefined });
    expect(updated).toMatchObject({ name: 'Team', limit: 750, type: 'monthly' });
  });

  it('triggers and resets one alert', async () => {
    const created = await t.repo.create(ORG_A, {
      name: 'Team',
      limit: 100,
      alerts: [
        { threshold: 50, channels: ['slack'] },
        { threshold: 90, channels: ['webhook'] },
      ],
    });
    const at = new Date('2030-01-01T00:00:00Z');
    expect(await t.repo.setAlertState(ORG_A, created._id, 1, true, at)).toBe(true);
    expect((await t.repo.findById(ORG_A, created._id))?.alerts).toEqual([
      { threshold: 50, channels: ['slack'], triggered: false, triggered_at: null },
      { threshold: 90, channels: ['webhook'], triggered: true, triggered_at: at },
    ]);
    expect(await t.repo.setAlertState(ORG_A, created._id, 1, false)).toBe(true);
    expect((await t.repo.findById(ORG_A, created._id))?.alerts[1]).toMatchObject({ triggered: false, triggered_at: null });
    expect(await t.repo.setAlertState(ORG_A, created._id, 5, true)).toBe(false);
  });

  it('transitions an alert once: the first of racing evaluators wins, a new period re-arms it', async () => {
    const created = await t.repo.create(ORG_A, { name: 'Team', type: 'daily', limit: 10, alerts: [{ threshold: 50, channels: ['webhook'] }] });
    const day1 = new Date('2030-01-01T00:00:00Z');
    const at1 = new Date('2030-01-01T10:00:00Z');
    const race = await Promise.all([0, 1, 2].map(() => t.repo.transitionAlert(ORG_A, created._id, 0, { threshold: 50, triggered: true, since: day1 }, at1)));
    expect(race.filter(Boolean)).toHaveLength(1);
    expect((await t.repo.findById(ORG_A, created._id))?.alerts[0]).toMatchObject({ triggered: true, triggered_at: at1 });
    // Triggered in this period: nothing to do; a changed threshold or another tenant: no match.
    expect(await t.repo.transitionAlert(ORG_A, created._id, 0, { threshold: 50, triggered: true, since: day1 })).toBe(false);
    expect(await t.repo.transitionAlert(ORG_A, created._id, 0, { threshold: 60, triggered: false })).toBe(false);
    expect(await t.repo.transitionAlert(ORG_B, created._id, 0, { threshold: 50, triggered: false })).toBe(false);
    // The next day the alert of yesterday counts as not triggered: it can fire again, once.
    const day2 = new Date('2030-01-02T00:00:00Z');
    const at2 = new Date('2030-01-02T08:00:00Z');
    expect(await t.repo.transitionAlert(ORG_A, created._id, 0, { threshold: 50, triggered: true, since: day2 }, at2)).toBe(true);
    expect(await t.repo.transitionAlert(ORG_A, created._id, 0, { threshold: 50, triggered: true, since: day2 }, at2)).toBe(false);
    expect((await t.repo.findById(ORG_A, created._id))?.alerts[0]).toMatchObject({ triggered: true, triggered_at: at2 });
    expect(await t.repo.transitionAlert(ORG_A, created._id, 0, { threshold: 50, triggered: false })).toBe(true);
    expect(await t.repo.transitionAlert(ORG_A, created._id, 0, { threshold: 50, triggered: false })).toBe(false);
    expect((await t.repo.findById(ORG_A, created._id))?.alerts[0]).toMatchObject({ triggered: false, triggered_at: null });
    expect(await t.repo.transitionAlert(ORG_A, created._id, 3, { threshold: 50, triggered: true })).toBe(false);
  });

  it('isolates tenants', async () => {
    const created = await t.repo.create(ORG_A, { name: 'Team', type: 'daily', limit: 5, auto_stop: true, alerts: [{ threshold: 50, channels: ['email'] }] });
    await expectTenantIsolation(t.repo, created, { limit: 1 });
    expect(await t.repo.listAutoStop(ORG_B)).toEqual([]);
    expect(await t.repo.listAll(ORG_B)).toEqual([]);
    expect(await t.repo.setAlertState(ORG_B, created._id, 0, true)).toBe(false);
    expect(await t.repo.findById(ORG_A, created._id)).toEqual(created);
  });
});
