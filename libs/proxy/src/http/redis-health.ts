import { raceTimeout, Redis, RedisStatus } from '@svc/platform';

export interface RedisHealthOptions {
  /** Longest a health answer waits for Redis' PING (default 250 ms). */
  timeoutMs?: number;
  /** How long a PING's outcome is reused (default 1000 ms): at most one PING per window, however often health is polled. */
  cacheMs?: number;
}

/**
 * What the health endpoints report for Redis (SPEC.md "Health and service endpoints"). A closed
 * connection is `disconnected` at once; on an open one Redis is asked itself, with a PING bounded
 * by `timeoutMs`, so a Redis that stopped answering (a partition, a paused or hung process) shows
 * on health even when no request has met it yet, and a health answer never waits on it longer than
 * the deadline. One PING is in flight at a time and its outcome is reused for `cacheMs`.
 */
export class RedisHealthProbe {
  private readonly timeoutMs: number;
  private readonly cacheMs: number;
  private last: { status: RedisStatus; at: number } | null = null;
  private inFlight: Promise<RedisStatus> | null = null;

  constructor(
    private readonly client: Redis | null,
    options: RedisHealthOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? 250;
    this.cacheMs = options.cacheMs ?? 1_000;
  }

  async status(): Promise<RedisStatus> {
    const client = this.client;
    if (!client) return 'not_configured';
    if (client.status !== 'ready') return 'disconnected';
    if (this.last && Date.now() - this.last.at < this.cacheMs) return this.last.status;
    this.inFlight ??= this.ping(client);
    return this.inFlight;
  }

  private async ping(client: Redis): Promise<RedisStatus> {
    const answered = client.ping().then(
      (): RedisStatus => 'connected',
      (): RedisStatus => 'disconnected',
    );
    try {
      const status = await raceTimeout(answered, this.timeoutMs, (): RedisStatus => 'disconnected', { unref: true });
      this.last = { status, at: Date.now() };
      return status;
    } finally {
      this.inFlight = null;
    }
  }
}
