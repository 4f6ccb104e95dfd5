import { request as httpRequest } from 'node:http';
import { RunnerStreamHub } from '@svc/runners';
import { bootRunners, eventually, LOCAL_ON, RUNNERS, RunnerTestContext, seedKey, sleep } from './runner-helpers';
import { SseClient } from './sse-client';

const HEARTBEAT_MS = 100;

describe('runner stream (SSE)', () => {
  let t: RunnerTestContext;
  let adminKey: string;
  beforeAll(async () => {
    t = await bootRunners({ ...LOCAL_ON, RUNNER_STREAM_HEARTBEAT_MS: String(HEARTBEAT_MS) });
    adminKey = await seedKey(t.repos, t.orgId, ['admin:read']);
  });
  afterAll(() => t.stop());

  const hub = () => t.app().get(RunnerStreamHub);
  const open = (runnerId: string, query = '') => SseClient.open(`${t.base}${RUNNERS}/${runnerId}/stream${query}`, { 'X-SVC-API-Key': adminKey });

  it('lets two clients follow one session: snapshot, output, state changes, heartbeats, then done', async () => {
    const runner = await t.admin.createRunner({ provider_type: 'local' });
    const session = await t.admin.startSession(runner.runner_id);
    const first = await open(runner.runner_id);
    const second = await open(runner.runner_id, `?session_id=${session.session_id}`);
    expect(first.response.status).toBe(200);
    expect(first.response.headers.get('content-type')).toMatch(/^text\/event-stream/);

    for (const client of [first, second]) {
      const snapshot = await client.waitFor((e) => e.event === 'state_change');
      expect(snapshot.data).toMatchObject({ snapshot: true, runner_id: runner.runner_id, session_id: session.session_id, runner_state: 'running', session_state: 'active' });
    }
    expect(hub().listenerCount(runner.runner_id)).toBe(2);

    const exec = await t.admin.exec(runner.runner_id, session.session_id, ['echo', 'streamed', 'line']);
    for (const client of [first, second]) {
      const output = await client.waitFor((e) => e.event === 'output');
      expect(output.data).toEqual({
        runner_id: runner.runner_id,
        session_id: session.session_id,
        command_id: exec.body.command_id,
        stream: 'stdout',
        data: 'streamed line\n',
      });
    }

    await sleep(HEARTBEAT_MS * 3.5);
    for (const client of [first, second]) {
      const heartbeats = client.events.filter((e) => e.event === 'heartbeat');
      expect(heartbeats.length).toBeGreaterThanOrEqual(2);
      expect(heartbeats[0].data).toMatchObject({ runner_id: runner.runner_id, timestamp: expect.any(String) });
    }

    expect((await t.admin.post(`/${runner.runner_id}/stop`, undefined, { session_id: session.session_id })).status).toBe(200);
    for (const client of [first, second]) {
      await client.ended;
      const changes = client.events.filter((e) => e.event === 'state_change' && !e.data.snapshot).map((e) => e.data.event_type);
      expect(changes).toEqual(['session_stopping', 'session_terminated']);
      expect(client.events.at(-1)).toMatchObject({ event: 'done', data: { runner_id: runner.runner_id, session_id: session.session_id, reason: 'session_terminated' } });
    }
    await eventually(async () => hub().listenerCount(runner.runner_id) === 0);
  });

  it('cleans up a client that goes away while the other keeps receiving', async () => {
    const runner = await t.admin.createRunner();
    const session = await t.admin.startSession(runner.runner_id);
    const leaving = await open(runner.runner_id);
    const staying = await open(runner.runner_id);
    await leaving.waitFor((e) => e.event === 'state_change');
    await staying.waitFor((e) => e.event === 'state_change');
    expect(hub().listenerCount(runner.runner_id)).toBe(2);
    leaving.close();
    await eventually(async () => hub().listenerCount(runner.runner_id) === 1);
    await t.admin.exec(runner.runner_id, session.session_id, ['echo', 'still', 'here']);
    expect((await staying.waitFor((e) => e.event === 'output')).data.data).toBe('echo still here\n');
    staying.close();
    await eventually(async () => hub().listenerCount(runner.runner_id) === 0);
  });

  it('follows the whole runner without a session and ends on terminate; accepts api_key in the query (EventSource)', async () => {
    const runner = await t.admin.createRunner();
    const client = await SseClient.open(`${t.base}${RUNNERS}/${runner.runner_id}/stream?api_key=${adminKey}`);
    expect((await client.waitFor((e) => e.event === 'state_change')).data).toMatchObject({ session_id: null, runner_state: 'ready' });
    const session = await t.admin.startSession(runner.runner_id);
    await client.waitFor((e) => e.data.event_type === 'session_active');
    await t.admin.post(`/${runner.runner_id}/terminate`);
    await client.ended;
    const types = client.events.filter((e) => e.event === 'state_change').map((e) => e.data.event_type ?? 'snapshot');
    expect(types).toEqual(['snapshot', 'session_starting', 'session_active', 'session_terminated', 'runner_terminated']);
    expect(client.events.at(-1)).toMatchObject({ event: 'done', data: { reason: 'runner_terminated', session_id: null } });
    expect(session.session_id).toMatch(/^ses_/);
  });

  it('sends error then done when the provider fails', async () => {
    const runner = await t.admin.createRunner({ tool_profile: 'full_vm_tools' });
    const session = await t.admin.startSession(runner.runner_id);
    const client = await open(runner.runner_id);
    await client.waitFor((e) => e.event === 'state_change');
    expect((await t.admin.exec(runner.runner_id, session.session_id, ['fake:provider-error'])).status).toBe(502);
    await client.ended;
    expect((await client.waitFor((e) => e.event === 'error')).data).toMatchObject({ code: 'provider_error', session_id: session.session_id });
    expect(client.events.at(-1)).toMatchObject({ event: 'done', data: { reason: 'session_failed' } });
  });

  it('ends at once for a session that already ended, and answers 404 before streaming for unknown ids', async () => {
    const runner = await t.admin.createRunner();
    const session = await t.admin.startSession(runner.runner_id);
    await t.admin.post(`/${runner.runner_id}/stop`, undefined, { session_id: session.session_id });
    const client = await open(runner.runner_id, `?session_id=${session.session_id}`);
    await client.ended;
    expect(client.names()).toEqual(['state_change', 'done']);
    expect(client.events[1].data).toMatchObject({ reason: 'session_terminated' });

    const unknownSession = await fetch(`${t.base}${RUNNERS}/${runner.runner_id}/stream?session_id=ses_nope`, { headers: { 'X-SVC-API-Key': adminKey } });
    expect(unknownSession.status).toBe(404);
    expect(((await unknownSession.json()) as { error: { code: string } }).error.code).toBe('session_not_found');
    const unknownRunner = await fetch(`${t.base}${RUNNERS}/run_nope/stream`, { headers: { 'X-SVC-API-Key': adminKey } });
    expect(unknownRunner.status).toBe(404);
    expect(hub().listenerCount()).toBe(0);
  });

  it('answers HEAD with the stream headers and ends at once, holding nothing open (no hang on a live session)', async () => {
    const runner = await t.admin.createRunner();
    await t.admin.startSession(runner.runner_id);
    const url = new URL(`${t.base}${RUNNERS}/${runner.runner_id}/stream`);
    const head = await new Promise<{ status?: number; type?: string; ended: boolean }>((resolve) => {
      const req = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, method: 'HEAD', headers: { 'X-SVC-API-Key': adminKey } }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode, type: res.headers['content-type'], ended: true }));
      });
      req.setTimeout(2_000, () => {
        resolve({ ended: false });
        req.destroy();
      });
      req.end();
    });
    expect(head).toEqual({ status: 200, type: expect.stringMatching(/^text\/event-stream/), ended: true });
    await eventually(async () => hub().listenerCount(runner.runner_id) === 0);
  });
});

describe('runner stream on Redis (REDIS_URL)', () => {
  let t: RunnerTestContext;
  beforeAll(async () => {
    t = await bootRunners({ REDIS_URL: process.env.TEST_REDIS_URL as string, RUNNER_STREAM_HEARTBEAT_MS: String(HEARTBEAT_MS) });
  });
  afterAll(() => t.stop());

  it('delivers each event once to a local follower while relaying it to other replicas', async () => {
    const key = await seedKey(t.repos, t.orgId, ['admin:read']);
    const runner = await t.admin.createRunner();
    const session = await t.admin.startSession(runner.runner_id);
    const client = await SseClient.open(`${t.base}${RUNNERS}/${runner.runner_id}/stream`, { 'X-SVC-API-Key': key });
    await client.waitFor((e) => e.event === 'state_change');
    await t.admin.exec(runner.runner_id, session.session_id, ['echo', 'once']);
    await t.admin.post(`/${runner.runner_id}/stop`, undefined, { session_id: session.session_id });
    await client.ended;
    expect(client.events.filter((e) => e.event === 'output').map((e) => e.data.data)).toEqual(['echo once\n']);
    expect(client.events.filter((e) => e.event === 'done')).toHaveLength(1);
  });
});
