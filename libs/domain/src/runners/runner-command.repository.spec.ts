import { storeTargets } from '../testing/stores';
import { expectTenantIsolation, ORG_A, ORG_B, useRepository } from '../testing/jest-helpers';
import { RunnerCommandRepository } from './runner-command.repository';

describe.each(storeTargets(process.env.MONGODB_URI))('RunnerCommandRepository ($name)', (target) => {
  const t = useRepository(target, (store) => new RunnerCommandRepository(store));
  const t0 = new Date('2030-01-01T00:00:00Z');
  const run = (orgId = ORG_A, at = t0) =>
    t.repo.create(orgId, { runner_id: 'run_1', session_id: 'ses_1', argv: ['echo', 'hi'], timeout_seconds: 30 }, at);

  it('records a running command and completes it once', async () => {
    const created = await run();
    expect(created).toMatchObject({ status: 'running', argv: ['echo', 'hi'], exit_code: null, stdout: null, finished_at: null });
    expect(created._id).toMatch(/^cmd_/);
    const done = await t.repo.complete(ORG_A, created._id, { status: 'completed', exit_code: 0, stdout: 'hi\n', stderr: '' }, new Date(t0.getTime() + 1500));
    expect(done).toMatchObject({ status: 'completed', exit_code: 0, stdout: 'hi\n', duration_ms: 1500 });
    expect(await t.repo.complete(ORG_A, created._id, { status: 'failed', exit_code: 1, stdout: null, stderr: null })).toBeNull();
  });

  it('lists the commands of a session, newest first', async () => {
    const a = await run(ORG_A, t0);
    const b = await run(ORG_A, new Date(t0.getTime() + 1000));
    expect((await t.repo.listBySession(ORG_A, 'ses_1')).map((c) => c._id)).toEqual([b._id, a._id]);
  });

  it('isolates tenants', async () => {
    const created = await run();
    await expectTenantIsolation(t.repo, created, { stdout: 'evil' });
    expect(await t.repo.complete(ORG_B, created._id, { status: 'completed', exit_code: 0, stdout: 'x', stderr: null })).toBeNull();
    expect(await t.repo.listBySession(ORG_B, 'ses_1')).toEqual([]);
    expect(await t.repo.findById(ORG_A, created._id)).toEqual(created);
  });
});
