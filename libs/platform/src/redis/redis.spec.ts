import { unusedPort } from './unused-port';
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

  it('sends the commands of one event-loop turn in one write, in order, with their own replies', async () => {
    const client = createRedis(url, 'hot-path', 'test');
    try {
      await waitForRedis(client);
      const socket = (client as unknown as { stream: { writableCorked: number; writableLength: number } }).stream;
      const key = `platform:redis:batch:${process.pid}`;
      const replies = [client.del(key), ...Array.from({ length: 20 }, () => client.incr(key)), client.pipeline().incr(key).get(key).exec(), client.get(key)];
      // Nothing has reached the kernel yet: the socket holds the whole turn's commands.
      expect(socket.writableCorked).toBe(1);
      expect(socket.writableLength).toBeGreaterThan(20 * '*2\r\n$4\r\nincr\r\n'.length);
      const [deleted, ...rest] = await Promise.all(replies);
      expect(deleted).toBeGreaterThanOrEqual(0);
      expect(rest.slice(0, 20)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect(rest[20]).toEqual([
        [null, 21],
        [null, '21'],
      ]);
      expect(rest[21]).toBe('21');
      expect(socket.writableCorked).toBe(0);
      // A later turn starts a new batch.
      expect(await client.incr(key)).toBe(22);
      await client.del(key);
    } finally {
      client.disconnect();
    }
  });

  it('fails commands at once when Redis is down, instead of queueing them', async () => {
    const client = createRedis(`redis://127.0.0.1:${await unusedPort()}`, 'hot-path', 'test');
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
