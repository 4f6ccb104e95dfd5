import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { Repositories, UsageRecordEntity } from '@svc/domain';
import { LOGGER, Logger } from '@svc/platform';
import { REPOSITORIES } from '@svc/runtime';

const FLUSH_INTERVAL_MS = 250;
const MAX_BATCH = 500;
const MAX_BUFFERED = 50_000;

/**
 * Writes usage records off the hot path: requests append to a buffer that is flushed in batches
 * every 250 ms (or at 500 records), and once more when the module shuts down.
 */
@Injectable()
export class UsageRecorder implements OnModuleDestroy {
  private buffer: UsageRecordEntity[] = [];
  private flushing: Promise<void> | null = null;
  private readonly timer: NodeJS.Timeout;

  constructor(
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.timer = setInterval(() => void this.flush(), FLUSH_INTERVAL_MS);
    this.timer.unref();
  }

  record(entry: UsageRecordEntity): void {
    if (this.buffer.length >= MAX_BUFFERED) {
      this.logger.error({ dropped: entry._id }, 'usage buffer full; the store is not keeping up');
      return;
    }
    this.buffer.push(entry);
    if (this.buffer.length >= MAX_BATCH) void this.flush();
  }

  /** Writes everything buffered so far (tests call it to read their records back). */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.buffer.length === 0) return;
    const batch = this.buffer;
    this.buffer = [];
    this.flushing = this.repositories.usage
      .recordBatch(batch)
      .catch((err: unknown) => {
        this.logger.error({ err, count: batch.length }, 'usage records could not be written; retrying');
        this.buffer = batch.concat(this.buffer);
      })
      .finally(() => {
        this.flushing = null;
      });
    await this.flushing;
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
