import { OpenApiJson, schemaDepartures } from '@svc/testing';
import { bootRunners, LOCAL_ON, RUNNERS, RunnerTestContext, seedKey, sleep } from './runner-helpers';
import { SseClient } from './sse-client';

type Operation = { security?: Record<string, string[]>[] };

const HEARTBEAT_MS = 100;

/**
 * The runner routes take a gateway key or a dashboard access token (docs/runners.md), like every
 * admin route: the OpenAPI document must say so, or /docs' "Try it out" with a signed-in user's
 * token (Authorize → bearer) sends no credentials to the runner routes and gets a 401.
 */
describe('runner control plane OpenAPI document', () => {
  let t: RunnerTestContext;
  beforeAll(async () => {
    t = await bootRunners({ ...LOCAL_ON, RUNNER_STREAM_HEARTBEAT_MS: String(HEARTBEAT_MS) });
  });
  afterAll(() => t.stop());

  it('lists both the gateway key and the bearer token on every authenticated runner route', async () => {
    const doc = (await (await fetch(`${t.base}/docs/json`)).json()) as { paths: Record<string, Record<string, Operation>> };
    const secured = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/gateway/admin/runners'))
      .flatMap(([path, operations]) => Object.entries(operations).map(([method, op]) => ({ route: `${method} ${path}`, op })))
      .filter(({ op }) => op.security?.length);
    expect(secured.length).toBeGreaterThanOrEqual(12);
    const schemes = secured.map(({ route, op }) => [route, (op.security ?? []).flatMap((entry) => Object.keys(entry)).sort()]);
    expect(schemes).toEqual(secured.map(({ route }) => [route, ['bearer', 'gateway-key']]));
  });

  it('answers a dashboard access token on those routes, as documented', async () => {
    const res = await t.role('Owner').get('/');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ runners: [], total: 0 });
  });

  it('documents the stream as text/event-stream with the data of each SPEC.md event, and real events fit it', async () => {
    const doc = (await (await fetch(`${t.base}/docs/json`)).json()) as OpenApiJson;
    const content = doc.paths[`${RUNNERS}/{runner_id}/stream`]?.get?.responses?.['200']?.content ?? {};
    expect(Object.keys(content)).toEqual(['text/event-stream']);
    const events = (content['text/event-stream']['x-sse-events'] ?? {}) as Record<string, OpenApiJson>;
    expect(Object.keys(events).sort()).toEqual(['done', 'error', 'heartbeat', 'output', 'state_change']);
    for (const name of Object.keys(events)) expect(content['text/event-stream'].schema.description).toContain(`\`${name}\``);

    // One session followed to its end (snapshot, output, heartbeats, transitions, done), one that fails (error).
    const key = await seedKey(t.repos, t.orgId, ['admin:read']);
    const open = (runnerId: string) => SseClient.open(`${t.base}${RUNNERS}/${runnerId}/stream`, { 'X-SVC-API-Key': key });
    const runner = await t.admin.createRunner({ provider_type: 'local' });
    const session = await t.admin.startSession(runner.runner_id);
    const followed = await open(runner.runner_id);
    expect(followed.response.headers.get('content-type')?.split(';')[0]).toBe('text/event-stream');
    await followed.waitFor((e) => e.event === 'state_change');
    await t.admin.exec(runner.runner_id, session.session_id, ['echo', 'documented']);
    await followed.waitFor((e) => e.event === 'output');
    await sleep(HEARTBEAT_MS * 2.5);
    expect((await t.admin.post(`/${runner.runner_id}/stop`, undefined, { session_id: session.session_id })).status).toBe(200);
    await followed.ended;

    const failing = await t.admin.createRunner({ tool_profile: 'full_vm_tools' });
    const failingSession = await t.admin.startSession(failing.runner_id);
    const failed = await open(failing.runner_id);
    await failed.waitFor((e) => e.event === 'state_change');
    expect((await t.admin.exec(failing.runner_id, failingSession.session_id, ['fake:provider-error'])).status).toBe(502);
    await failed.ended;

    const received = [...followed.events, ...failed.events];
    expect([...new Set(received.map((e) => e.event))].sort()).toEqual(Object.keys(events).sort());
    expect(received.some((e) => e.event === 'state_change' && !e.data.snapshot)).toBe(true);
    const departures = received.flatMap((e, i) => (events[e.event] ? schemaDepartures(doc, events[e.event], e.data, `events[${i}] ${e.event}`) : [`events[${i}]: ${e.event} is not documented`]));
    expect(departures).toEqual([]);
  });
});
