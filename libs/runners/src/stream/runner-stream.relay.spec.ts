import { AddressInfo, connect, createServer, Server, Socket } from 'node:net';
import pino from 'pino';
import { silentLogger } from '@svc/domain';
import { createRedis, Redis, waitForRedis } from '@svc/platform';
import { RunnerStreamEvent, RunnerStreamHub } from './runner-stream.hub';
import { RunnerStreamRelay } from './runner-stream.relay';

/** Two replicas' hubs over a real Redis (the private redis-server of the test run). */
describe('RunnerStreamRelay', () => {
  const clients: Redis[] = [];
  const relays: RunnerStreamRelay[] = [];
  const channel = `svc:runner-stream:test:${Date.now()}`;

  async function replica(): Promise<RunnerStreamHub> {
    const redis = createRedis(process.env.TEST_REDIS_URL as string, 'hot-path', 'runner-stream-spec');
    clients.push(redis);
    await waitForRedis(redis);
    const hub = new RunnerStreamHub();
    const relay = new RunnerStreamRelay(hub, redis, silentLogger(), channel);
    relays.push(relay);
    await relay.ready();
    return hub;
  }
  afterAll(async () => {
    for (const relay of relays) await relay.close();
    for (const client of clients) await client.quit();
  });

  const event = (text: string): RunnerStreamEvent => ({ event: 'output', runnerId: 'run_relay', sessionId: 'ses_1', data: { data: text } });

  it('delivers an event published on one replica to the followers of another, and once to its own', async () => {
    const a = await replica();
    const b = await replica();
    const onA: string[] = [];
    const onB: string[] = [];
    a.subscribe('run_relay', (e) => onA.push(String(e.data.data)));
    b.subscribe('run_relay', (e) => onB.push(String(e.data.data)));
    a.publish(event('from a'));
    b.publish(event('from b'));
    const until = Date.now() + 3_000;
    while ((onA.length < 2 || onB.length < 2) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(onA.sort()).toEqual(['from a', 'from b']);
    expect(onB.sort()).toEqual(['from a', 'from b']);
  });
});

/**
 * The relay's subscriber is a new connection, made while the service boots. A hot-path client's
 * 1 s command timeout must not apply to its SUBSCRIBE: a connection slower than that (a busy start,
 * a remote Redis) used to log "could not subscribe; streams see this replica only" although the
 * queued SUBSCRIBE then went through.
 */
describe('RunnerStreamRelay on a slow connection', () => {
  const sockets = new Set<Socket>();
  let proxy: Server;
  let publisher: Redis;
  let relay: RunnerStreamRelay | null = null;

  beforeAll(async () => {
    const target = new URL(process.env.TEST_REDIS_URL as string);
    // Every connection through this proxy reaches Redis 1.5 s after it is accepted.
    proxy = createServer((client) => {
      sockets.add(client);
      client.pause();
      setTimeout(() => {
        const upstream = connect(Number(target.port), target.hostname, () => {
          client.pipe(upstream).pipe(client);
          client.resume();
        });
        sockets.add(upstream);
        upstream.on('error', () => client.destroy());
        client.on('error', () => upstream.destroy());
        client.on('close', () => upstream.destroy());
      }, 1_500);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const port = (proxy.address() as AddressInfo).port;
    publisher = createRedis(`redis://127.0.0.1:${port}`, 'hot-path', 'runner-stream-slow-spec');
    await waitForRedis(publisher, 10_000);
  });
  afterAll(async () => {
    await relay?.close();
    publisher.disconnect();
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => proxy.close(resolve));
  });

  it('subscribes, and says nothing about this replica only, when connecting takes longer than 1 s', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
    const hub = new RunnerStreamHub();
    const channel = `svc:runner-stream:slow:${Date.now()}`;
    relay = new RunnerStreamRelay(hub, publisher, logger, channel);
    await relay.ready();
    expect(lines.join('')).not.toContain('could not subscribe');

    const received: string[] = [];
    hub.subscribe('run_slow', (e) => received.push(String(e.data.data)));
    const other = createRedis(process.env.TEST_REDIS_URL as string, 'hot-path', 'runner-stream-slow-other');
    try {
      await waitForRedis(other);
      const message = { origin: 'another-replica', event: { event: 'output', runnerId: 'run_slow', sessionId: 'ses_1', data: { data: 'relayed' } } };
      const until = Date.now() + 3_000;
      while (received.length === 0 && Date.now() < until) {
        await other.publish(channel, JSON.stringify(message));
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      other.disconnect();
    }
    expect(received[0]).toBe('relayed');
  });
});
