import { connect } from 'node:net';
import { RunnerStreamHub, RunnerStreamService } from '@svc/runners';
import { bootRunners, eventually, RUNNERS, RunnerTestContext, seedKey, sleep } from './runner-helpers';
import { SseClient } from './sse-client';

const HEARTBEAT_MS = 50;

/**
 * The stream reads the runner (and session) before it subscribes. These tests widen that window the
 * way a slow document store would: a wrapper around one real repository method waits (or lets
 * another request finish) before handing back what the real store read. Nothing is mocked: the
 * store, the service and the HTTP sockets are the real ones.
 */
describe('runner stream set-up races', () => {
  let t: RunnerTestContext;
  let key: string;
  beforeAll(async () => {
    t = await bootRunners({ RUNNER_STREAM_HEARTBEAT_MS: String(HEARTBEAT_MS) });
    key = await seedKey(t.repos, t.orgId, ['admin:write']);
  });
  afterAll(() => t.stop());

  const hub = () => t.app().get(RunnerStreamHub);
  const streams = () => t.app().get(RunnerStreamService);

  /** Runs `during` once, on the next call of `method`, after the real read and before its result is handed back. */
  function holdNextRead<R extends object, K extends keyof R>(repo: R, method: K, during: () => Promise<unknown>): { restore: () => void; done: Promise<void> } {
    const original = repo[method] as unknown as (...args: unknown[]) => Promise<unknown>;
    let signal: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (signal = resolve));
    let armed = true;
    (repo as Record<K, unknown>)[method] = async (...args: unknown[]) => {
      const result = await original.apply(repo, args);
      if (armed) {
        armed = false;
        await during();
        signal();
      }
      return result;
    };
    return { restore: () => ((repo as Record<K, unknown>)[method] = original), done };
  }

  it('never subscribes a client that left while its stream request was being set up (no listener, no timer left behind)', async () => {
    const runner = await t.admin.createRunner();
    const openBefore = streams().openCount();
    const url = new URL(t.base);
    const socket = connect(Number(url.port), url.hostname);
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    // The runner read is held until the client has hung up.
    const hold = holdNextRead(t.repos.runners, 'findById', () => closed.then(() => sleep(50)));
    try {
      socket.on('connect', () => {
        socket.write(`GET ${RUNNERS}/${runner.runner_id}/stream HTTP/1.1\r\nHost: ${url.host}\r\nX-SVC-API-Key: ${key}\r\nAccept: text/event-stream\r\n\r\n`);
        setTimeout(() => socket.destroy(), 20);
      });
      await hold.done;
    } finally {
      hold.restore();
    }
    await sleep(HEARTBEAT_MS * 3);
    expect(hub().listenerCount(runner.runner_id)).toBe(0);
    expect(streams().openCount()).toBe(openBefore);
  });

  it('ends with done a stream whose session ended between the read and the subscription (no endless heartbeats)', async () => {
    const runner = await t.admin.createRunner();
    const session = await t.admin.startSession(runner.runner_id);
    // The stream reads the session as active; before it subscribes, the session is stopped.
    const hold = holdNextRead(t.repos.runnerSessions, 'findById', async () => {
      expect((await t.admin.post(`/${runner.runner_id}/stop`, undefined, { session_id: session.session_id })).status).toBe(200);
    });
    let client: SseClient;
    try {
      client = await SseClient.open(`${t.base}${RUNNERS}/${runner.runner_id}/stream?session_id=${session.session_id}`, { 'X-SVC-API-Key': key });
      await hold.done;
    } finally {
      hold.restore();
    }
    expect(client.response.status).toBe(200);
    const done = await client.waitFor((e) => e.event === 'done', 2_000);
    expect(done.data).toEqual({ runner_id: runner.runner_id, session_id: session.session_id, reason: 'session_terminated' });
    await client.ended;
    expect(client.events[0]).toMatchObject({ event: 'state_change', data: { snapshot: true, session_state: 'active' } });
    expect(client.events.at(-1)?.event).toBe('done');
    await eventually(async () => hub().listenerCount(runner.runner_id) === 0);
  });

  it('ends with done a runner-level stream whose runner was terminated between the read and the subscription', async () => {
    const runner = await t.admin.createRunner();
    const hold = holdNextRead(t.repos.runnerSessions, 'findLive', async () => {
      expect((await t.admin.post(`/${runner.runner_id}/terminate`)).status).toBe(200);
    });
    let client: SseClient;
    try {
      client = await SseClient.open(`${t.base}${RUNNERS}/${runner.runner_id}/stream`, { 'X-SVC-API-Key': key });
      await hold.done;
    } finally {
      hold.restore();
    }
    const done = await client.waitFor((e) => e.event === 'done', 2_000);
    expect(done.data).toEqual({ runner_id: runner.runner_id, session_id: null, reason: 'runner_terminated' });
    await client.ended;
    await eventually(async () => hub().listenerCount(runner.runner_id) === 0);
  });

  it('keeps following a live session after the second read (nothing ended)', async () => {
    const runner = await t.admin.createRunner();
    const session = await t.admin.startSession(runner.runner_id);
    const client = await SseClient.open(`${t.base}${RUNNERS}/${runner.runner_id}/stream`, { 'X-SVC-API-Key': key });
    await sleep(HEARTBEAT_MS * 3);
    expect(client.names()).not.toContain('done');
    expect(client.names()).toContain('heartbeat');
    expect((await t.admin.exec(runner.runner_id, session.session_id, ['echo', 'after', 'reload'])).status).toBe(200);
    expect((await client.waitFor((e) => e.event === 'output')).data.data).toBe('echo after reload\n');
    client.close();
    await eventually(async () => hub().listenerCount(runner.runner_id) === 0);
  });
});
