import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRunnerTokenResolver, hashRunnerToken } from '@svc/auth';
import { asOrgId } from '@svc/domain';
import { bootService } from '@svc/testing';
import { SERVICE } from '../src/app.module';
import { bootRunners, eventually, LOCAL_ON, RunnerApi, RUNNERS, RunnerTestContext, seedKey } from './runner-helpers';
import { SseClient } from './sse-client';

/**
 * The TTL minimum is 60 s, so the tests move a session's `expires_at` into the past through the
 * repository (what the clock would do) and let the real sweeper act: on its short interval, or at
 * start-up after a restart.
 */
describe('runner TTL', () => {
  describe('while running', () => {
    let t: RunnerTestContext;
    beforeAll(async () => {
      t = await bootRunners({ ...LOCAL_ON, RUNNER_SWEEP_INTERVAL_MS: '50' });
    });
    afterAll(() => t.stop());

    it('expires the session and stops the runner once the TTL has elapsed; the runner token stops working', async () => {
      const runner = await t.admin.createRunner({ provider_type: 'local', ttl_seconds: 60 });
      const session = await t.admin.startSession(runner.runner_id);
      const resolve = createRunnerTokenResolver(t.repos);
      expect(await resolve(hashRunnerToken(session.runner_token), new Date())).not.toBeNull();
      const dirs = await t.admin.exec(runner.runner_id, session.session_id, ['pwd']);
      expect(dirs.body.exit_code).toBe(0);

      await t.repos.runnerSessions.updateById(t.orgId, session.session_id, { expires_at: new Date(Date.now() - 1) });
      const stopped = await eventually(async () => {
        const res = await t.admin.get(`/${runner.runner_id}`);
        return res.body.state === 'stopped' ? res.body : null;
      });
      expect(stopped).toMatchObject({ state: 'stopped', session: null });
      expect((await t.repos.runnerSessions.findById(t.orgId, session.session_id))?.state).toBe('expired');
      const last = (await t.admin.get(`/${runner.runner_id}/events`, { limit: '1' })).body.events[0];
      expect(last).toMatchObject({ event_type: 'session_expired', actor: 'system', session_id: session.session_id, detail: { runner_state: 'stopped', session_state: 'expired' } });
      expect(await resolve(hashRunnerToken(session.runner_token), new Date())).toBeNull();
      await eventually(async () => !existsSync((dirs.body.stdout as string).trim()));

      expect((await t.admin.post(`/${runner.runner_id}/start`)).status).toBe(409);
      expect((await t.admin.exec(runner.runner_id, session.session_id, ['echo'])).status).toBe(409);
      expect((await t.admin.post(`/${runner.runner_id}/terminate`)).body.state).toBe('terminated');
    });

    it('refuses exec on a session past its TTL (409 invalid_state)', async () => {
      const runner = await t.admin.createRunner();
      const session = await t.admin.startSession(runner.runner_id);
      await t.repos.runnerSessions.updateById(t.orgId, session.session_id, { expires_at: new Date(Date.now() - 1) });
      const res = await t.admin.exec(runner.runner_id, session.session_id, ['echo']);
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('invalid_state');
    });
  });

  it('expires sessions whose TTL elapsed while the service was down, at start-up, and ends open streams on shutdown', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-runner-restart-'));
    const env = { DATA_DIR: dataDir, RUNNER_SWEEP_INTERVAL_MS: '3600000', RUNNER_WORK_DIR: dataDir };
    try {
      const first = await bootService(SERVICE, env);
      const orgId = asOrgId((await first.runtime.repositories.organizations.create({ name: 'Restart', plan: 'growth' }))._id);
      const plaintext = await seedKey(first.runtime.repositories, orgId, ['admin:write']);
      const api = new RunnerApi(first.urls['runner-control-plane'], { 'X-SVC-API-Key': plaintext });
      const runner = await api.createRunner();
      const session = await api.startSession(runner.runner_id);
      const stream = await SseClient.open(`${api.base}${RUNNERS}/${runner.runner_id}/stream`, { 'X-SVC-API-Key': plaintext });
      await stream.waitFor((e) => e.event === 'state_change');
      await first.runtime.repositories.runnerSessions.updateById(orgId, session.session_id, { expires_at: new Date(Date.now() - 1) });
      const stopping = Date.now();
      await first.stop();
      expect(Date.now() - stopping).toBeLessThan(5_000);
      await stream.ended;
      expect(stream.events.at(-1)).toMatchObject({ event: 'done', data: { reason: 'shutdown' } });

      const second = await bootService(SERVICE, env);
      try {
        const after = new RunnerApi(second.urls['runner-control-plane'], { 'X-SVC-API-Key': plaintext });
        expect((await after.get(`/${runner.runner_id}`)).body).toMatchObject({ state: 'stopped', session: null });
        expect(await after.eventTypes(runner.runner_id)).toContain('session_expired');
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
