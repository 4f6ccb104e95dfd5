import { connect, createServer, Server, Socket } from 'node:net';
import { freePort } from '@svc/test-redis';
import { bootService, RedisProcess, startRedisProcess, TestService } from '@svc/testing';
import { SERVICE } from '../src/app.module';
import { bootRunners, RunnerApi, RUNNERS, RunnerTestContext, seedKey, sleep } from './runner-helpers';
import { SseClient } from './sse-client';

/**
 * A TCP proxy in front of a private redis-server that plays a Redis which is down when the service
 * starts, comes up, and goes away again just as the runner stream relay subscribes (the first
 * SUBSCRIBE to `svc:runner-stream` that passes through): every connection is cut and new ones are
 * refused for `outageMs`, then it stays up.
 */
class FlakyRedis {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  /** Set once the relay's SUBSCRIBE was cut off. */
  cut = false;

  private constructor(
    readonly port: number,
    private readonly target: RedisProcess,
    private readonly outageMs: number,
  ) {}

  static async create(target: RedisProcess, outageMs: number): Promise<FlakyRedis> {
    return new FlakyRedis(await freePort(), target, outageMs);
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  up(): Promise<void> {
    const server = createServer((client) => this.accept(client));
    this.server = server;
    return new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    const server = this.server;
    this.server = null;
    if (server) await new Promise((resolve) => server.close(resolve));
  }

  private accept(client: Socket): void {
    const upstream = connect(this.target.port, '127.0.0.1');
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    }
    client.on('data', (chunk: Buffer) => {
      const text = chunk.toString('latin1').toLowerCase();
      if (!this.cut && text.includes('subscribe') && text.includes('svc:runner-stream')) {
        this.cut = true;
        void this.close().then(() => setTimeout(() => void this.up(), this.outageMs));
        return;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  }
}

/**
 * docs/runners.md "Stream": with REDIS_URL, a client following a runner on one replica sees what
 * another replica does, through the relay's subscription. A replica that started while Redis was
 * down, and whose first SUBSCRIBE was lost with its connection (Redis went away again and refused
 * the reconnections), subscribes once Redis is back, as it does on every reconnection.
 */
describe('runner stream relay: the replica subscribes once Redis answers, whatever happened at start', () => {
  let redis: RedisProcess;
  let flaky: FlakyRedis;
  let a: RunnerTestContext;
  let b: TestService | null = null;
  let client: SseClient | null = null;

  beforeAll(async () => {
    redis = await startRedisProcess();
    flaky = await FlakyRedis.create(redis, 3_000);
    // Replica A starts while its Redis is down (nothing listens on its port): it boots degraded.
    a = await bootRunners({ REDIS_URL: flaky.url });
  }, 60_000);
  afterAll(async () => {
    client?.close();
    await b?.stop();
    await a?.stop();
    await flaky?.close();
    await redis?.stop();
  });

  it('relays to a client of replica A what replica B runs, after Redis came up, went away as A subscribed, and came back', async () => {
    await flaky.up();
    for (let waited = 0; !flaky.cut && waited < 10_000; waited += 50) await sleep(50);
    expect(flaky.cut).toBe(true);

    // Replica B shares A's documents and reaches Redis directly.
    b = await bootService(SERVICE, { REDIS_URL: redis.url, RUNNER_WORK_DIR: a.workDir }, { documentStore: a.service.runtime.store });
    const key = await seedKey(a.repos, a.orgId, ['admin:write']);
    const onB = new RunnerApi(b.urls['runner-control-plane'], { 'X-SVC-API-Key': key });
    const runner = await onB.createRunner();
    const session = await onB.startSession(runner.runner_id);

    client = await SseClient.open(`${a.base}${RUNNERS}/${runner.runner_id}/stream`, { 'X-SVC-API-Key': key });
    expect(client.response.status).toBe(200);
    await client.waitFor((e) => e.event === 'state_change' && e.data.snapshot === true);

    // B runs commands until one's output reaches A's client (A subscribes once Redis is back).
    const until = Date.now() + 20_000;
    let output: unknown = null;
    while (output === null && Date.now() < until) {
      const exec = await onB.exec(runner.runner_id, session.session_id, ['echo', 'relayed']);
      expect(exec.status).toBe(200);
      output = await client.waitFor((e) => e.event === 'output', 500).catch(() => null);
    }
    expect(output).toMatchObject({ event: 'output', data: { runner_id: runner.runner_id, session_id: session.session_id, stream: 'stdout', data: 'echo relayed\n' } });
  }, 60_000);
});
