import { AddressInfo, connect, createServer, Socket } from 'node:net';
import pino from 'pino';
import { raceTimeout } from '../async/race-timeout';
import { createRedis, waitForRedis } from './redis';
import { InvalidationBus } from './invalidation-bus';

const logger = pino({ level: 'silent' });

describe('InvalidationBus', () => {
  it('delivers locally without Redis', async () => {
    const bus = new InvalidationBus(null, logger);
    const seen: string[] = [];
    bus.subscribe('api-key', (id) => seen.push(id));
    await bus.publish('api-key', 'hash1');
    await bus.publish('policy', 'org1');
    expect(seen).toEqual(['hash1']);
    await expect(bus.listening(0)).resolves.toBe(true);
    await bus.close();
  });

  it('reaches another replica through Redis pub/sub', async () => {
    const url = process.env.TEST_REDIS_URL as string;
    const [a, b] = [createRedis(url, 'hot-path', 'a'), createRedis(url, 'hot-path', 'b')];
    await Promise.all([waitForRedis(a), waitForRedis(b)]);
    const channel = `test:invalidate:${Date.now()}`;
    const replicaA = new InvalidationBus(a, logger, channel);
    const replicaB = new InvalidationBus(b, logger, channel);
    const received = new Promise<string>((resolve) => replicaB.subscribe('organization', resolve));
    // Pub/sub keeps nothing: publishing before B's subscription is acknowledged would lose the message.
    await expect(replicaB.listening(5_000)).resolves.toBe(true);
    await replicaA.publish('organization', 'org_42');
    await expect(raceTimeout(received, 5_000, () => 'nothing within 5 s', { unref: true })).resolves.toBe('org_42');
    await Promise.all([replicaA.close(), replicaB.close()]);
    a.disconnect();
    b.disconnect();
  });

  it('says it is not listening while Redis cannot be reached, without throwing', async () => {
    const unreachable = createRedis('redis://127.0.0.1:1', 'hot-path', 'down');
    const bus = new InvalidationBus(unreachable, logger, 'test:invalidate:down');
    await expect(bus.listening(200)).resolves.toBe(false);
    await expect(bus.publish('api-key', 'hash1')).resolves.toBeUndefined();
    await bus.close();
    unreachable.disconnect();
  });

  it('subscribes once Redis answers when the replica started while it was down', async () => {
    const url = new URL(process.env.TEST_REDIS_URL as string);
    // A real socket in front of the real Redis: it hangs up on every connection until opened.
    let open = false;
    const sockets = new Set<Socket>();
    const gate = createServer((client) => {
      sockets.add(client);
      client.on('close', () => sockets.delete(client));
      if (!open) return void client.destroy();
      const upstream = connect(Number(url.port), url.hostname);
      sockets.add(upstream);
      client.pipe(upstream).pipe(client);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
    });
    await new Promise<void>((resolve) => gate.listen(0, '127.0.0.1', resolve));
    const gated = createRedis(`redis://127.0.0.1:${(gate.address() as AddressInfo).port}`, 'hot-path', 'gated');
    const direct = createRedis(url.toString(), 'hot-path', 'direct');
    await waitForRedis(direct);
    const channel = `test:invalidate:late:${Date.now()}`;
    const late = new InvalidationBus(gated, logger, channel);
    const publisher = new InvalidationBus(direct, logger, channel);
    try {
      await expect(late.listening(300)).resolves.toBe(false);
      open = true;
      await expect(late.listening(5_000)).resolves.toBe(true);
      const received = new Promise<string>((resolve) => late.subscribe('api-key', resolve));
      await publisher.publish('api-key', 'hash_late');
      await expect(raceTimeout(received, 5_000, () => 'nothing within 5 s', { unref: true })).resolves.toBe('hash_late');
    } finally {
      await Promise.all([late.close(), publisher.close()]);
      gated.disconnect();
      direct.disconnect();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => gate.close(resolve));
    }
  });
});
