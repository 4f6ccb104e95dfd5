import Redis, { RedisOptions } from 'ioredis';

export type RedisRole = 'hot-path' | 'queue';

/**
 * Builds an ioredis client.
 * - `hot-path`: no offline queue and one retry per command, so a dead Redis makes commands
 *   fail at once instead of parking requests; reconnects in the background with a capped backoff.
 *   No auto-pipelining: the counter store batches its admits (per turn of the event loop) and its
 *   settles into script calls itself. ioredis' auto-pipelining built a Pipeline object (a
 *   copy of every command name and script) for nearly every admit, alone in its tick, and kept
 *   commands alive across young-generation collections (docs/benchmarks.md).
 * - `queue`: what BullMQ requires (maxRetriesPerRequest null); only used off the request path.
 */
export function createRedis(url: string, role: RedisRole, name = 'svc'): Redis {
  const common: RedisOptions = {
    connectionName: `${name}:${role}`,
    connectTimeout: 2_000,
    lazyConnect: false,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  };
  const options: RedisOptions =
    role === 'hot-path'
      ? { ...common, enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 1_000, enableAutoPipelining: false }
      : { ...common, maxRetriesPerRequest: null, enableReadyCheck: false };
  const client = new Redis(url, options);
  // Errors surface on the commands that hit them; an unhandled 'error' event would crash the process.
  client.on('error', () => undefined);
  return client;
}

export type RedisStatus = 'connected' | 'disconnected' | 'not_configured';

export function redisStatus(client: Redis | null | undefined): RedisStatus {
  if (!client) return 'not_configured';
  return client.status === 'ready' ? 'connected' : 'disconnected';
}

/** Waits until the client is ready, or rejects after `timeoutMs`. */
export async function waitForRedis(client: Redis, timeoutMs = 5_000): Promise<void> {
  if (client.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      client.off('ready', onReady);
      reject(new Error(`Redis did not become ready within ${timeoutMs} ms`));
    }, timeoutMs);
    const onReady = () => {
      clearTimeout(timer);
      resolve();
    };
    client.once('ready', onReady);
  });
}

export type { Redis };
