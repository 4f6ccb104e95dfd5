import { freePort } from '@svc/test-redis';
import { createRedis, redisStatus, waitForRedis } from './redis';

describe('createRedis', () => {
  const url = process.env.TEST_REDIS_URL as string;

  it('talks to a real Redis', async () => {
    const client = createRedis(url, 'hot-path', 'test');
    try {
      await waitForRedis(client);
      expect(redisStatus(client)).toBe('connected');
      await client.set('platform:redis:spec', '1', 'EX', 5);
      expect(await client.get('platform:redis:spec')).toBe('1');
    } finally {
      client.disconnect();
    }
  });

  it('fails commands at once when Redis is down, instead of queueing them', async () => {
    const client = createRedis(`redis://127.0.0.1:${await freePort()}`, 'hot-path', 'test');
    try {
      const started = Date.now();
      await expect(client.get('anything')).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(500);
      expect(redisStatus(client)).toBe('disconnected');
    } finally {
      client.disconnect();
    }
  });

  it('reports not_configured without a client', () => {
    expect(redisStatus(null)).toBe('not_configured');
  });
});
