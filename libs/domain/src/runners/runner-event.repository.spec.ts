import { storeTargets } from '../testing/stores';
import { expectTenantIsolation, ORG_A, ORG_B, useRepository } from '../testing/jest-helpers';
import { RunnerEventRepository } from './runner-event.repository';

describe.each(storeTargets(process.env.MONGODB_URI))('RunnerEventRepository ($name)', (target) => {
  const t = useRepository(target, (store) => new RunnerEventRepository(store));

  it('appends audit events and lists a runner’s latest first with the total', async () => {
    const at = new Date('2030-01-01T00:00:00Z');
    // Same timestamp: the order of appending still decides the order of the listing.
    const created = await t.repo.append(ORG_A, { runner_id: 'run_1', event_type: 'runner_created', actor: 'usr_1' }, at);
    await t.repo.append(ORG_A, { runner_id: 'run_1', event_type: 'runner_provisioning', actor: 'system' }, at);
    await t.repo.append(ORG_A, { runner_id: 'run_1', event_type: 'runner_ready', actor: 'system', detail: { took_ms: 5 } }, at);
    await t.repo.append(ORG_A, { runner_id: 'run_2', event_type: 'runner_created', actor: 'usr_1' }, at);
    expect(created).toMatchObject({ session_id: null, detail: {}, timestamp: at });
    expect(created._id).toMatch(/^rev_/);
    const { events, total } = await t.repo.listByRunner(ORG_A, 'run_1', 2);
    expect(total).toBe(3);
    expect(events.map((e) => e.event_type)).toEqual(['runner_ready', 'runner_provisioning']);
    expect(events[0].detail).toEqual({ took_ms: 5 });
  });

  it('isolates tenants', async () => {
    const created = await t.repo.append(ORG_A, { runner_id: 'run_1', session_id: 'ses_1', event_type: 'command_executed', actor: 'usr_1' });
    await expectTenantIsolation(t.repo, created, { actor: 'evil' });
    expect(await t.repo.listByRunner(ORG_B, 'run_1')).toEqual({ events: [], total: 0 });
  });
});
