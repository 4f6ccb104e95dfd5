import pino from 'pino';
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
    await new Promise((resolve) => setTimeout(resolve, 100)); // let both subscriptions settle
    await replicaA.publish('organization', 'org_42');
    await expect(received).resolves.toBe('org_42');
    await Promise.all([replicaA.close(), replicaB.close()]);
    a.disconnect();
    b.disconnect();
  });
});
