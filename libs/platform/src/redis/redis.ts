import Redis, { Command, RedisOptions } from 'ioredis';

export type RedisRole = 'hot-path' | 'queue';

/**
 * An ioredis client whose commands issued in one turn of the event loop leave in one socket write:
 * the first command corks the socket and a `setImmediate` uncorks it after the I/O poll, so Node
 * sends everything written meanwhile (by every request whose I/O arrived in that turn) with one
 * `writev`. This is the batching of ioredis' auto-pipelining without its Pipeline objects, which
 * cost ~6 % of the gateway's allocations and kept each batch's commands alive across
 * young-generation collections (docs/benchmarks.md). Replies are matched in order as for any
 * command; nothing else about the client changes.
 */
class TickBatchedRedis extends Redis {
  private corked = false;

  override sendCommand(command: Command, stream?: Parameters<Redis['sendCommand']>[1]): unknown {
    if (!stream && !this.corked && this.status === 'ready') this.corkForThisTurn();
    return super.sendCommand(command, stream);
  }

  private corkForThisTurn(): void {
    const socket = (this as unknown as { stream?: NodeJS.WritableStream & { cork(): void; uncork(): void } }).stream;
    if (!socket || typeof socket.cork !== 'function') return;
    socket.cork();
    this.corked = true;
    setImmediate(() => {
      this.corked = false;
      socket.uncork();
    });
  }
}

/**
 * Builds an ioredis client.
 * - `hot-path`: no offline queue and one retry per command, so a dead Redis makes commands
 *   fail at once instead of parking requests; reconnects in the background with a capped backoff.
 *   Commands issued in one turn of the event loop leave in one write (TickBatchedRedis).
 * - `queue`: what BullMQ requires (maxRetriesPerRequest null); only used off the request path.
 */
export function createRedis(url: string, role: RedisRole, name = 'svc'): Redis {
  const common: RedisOptions = {
    connectionName: `${name}:${role}`,
    connectTimeout: 2_000,
    lazyConnect: false,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  };
  const client =
    role === 'hot-path'
      ? new TickBatchedRedis(url, { ...common, enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 1_000 })
      : new Redis(url, { ...common, maxRetriesPerRequest: null, enableReadyCheck: false });
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
