import { type Logger, raceTimeout, type Redis } from '@svc/platform';
import type * as BullMQ from 'bullmq';
import type { Job, MinimalJob, Queue, Worker } from 'bullmq';
import {
  AddJobOptions,
  assertValidJobOptions,
  backoffDelay,
  BackoffOptions,
  FailedJobHandler,
  isPermanentJobError,
  JobHandler,
  JobQueue,
  ProcessOptions,
  QueueJob,
  toError,
} from './job-queue';

export interface RetentionPolicy {
  /** Finished jobs older than this are removed. */
  ageSeconds: number;
  /** At most this many finished jobs are kept. */
  count: number;
}

export interface JobRetention {
  completed: RetentionPolicy;
  failed: RetentionPolicy;
}

/** Completed jobs: 1 hour / 1,000. Failed jobs: 30 days (the dead-letter retention) / 10,000. */
export const DEFAULT_JOB_RETENTION: JobRetention = Object.freeze({
  completed: { ageSeconds: 60 * 60, count: 1_000 },
  failed: { ageSeconds: 30 * 24 * 60 * 60, count: 10_000 },
});

export interface BullMqJobQueueOptions {
  /** A `queue`-role client (maxRetriesPerRequest null). Shared: the queue never closes it. */
  connection: Redis;
  /** Redis key prefix; the namespace that lets several deployments share one Redis. */
  prefix: string;
  logger: Logger;
  retention?: JobRetention;
}

/** Worker defaults that differ from BullMQ's: a job may stall twice before it fails. */
const DEFAULT_MAX_STALLED_COUNT = 2;
/** Longest wait for a worker's connections to finish initialising before closing it. */
const WORKER_READY_WAIT_MS = 2_000;

/**
 * BullMQ, loaded on first use: a process that only publishes (the gateway proxy) holds its ~4 MB of
 * heap only once it adds a job, not from start (docs/benchmarks.md, memory).
 */
let bullmq: typeof BullMQ | undefined;
const loadBullMq = (): typeof BullMQ => (bullmq ??= require('bullmq') as typeof BullMQ);

/**
 * JobQueue on BullMQ: one Queue for producing, one Worker per `process` call. Each Worker
 * reuses the shared connection for ordinary commands and opens its own blocking connection.
 * A worker that dies mid-job stops renewing the job's lock; once the lock expires another
 * worker's stalled-job check moves the job back to waiting and it runs again (at-least-once).
 */
export class BullMqJobQueue<T> implements JobQueue<T> {
  readonly kind = 'bullmq' as const;
  /** Opened on first use (see loadBullMq). */
  private opened: Queue | undefined;
  private readonly workers: Worker[] = [];
  private readonly failedHandlers: FailedJobHandler<T>[] = [];
  private readonly pendingHooks = new Set<Promise<void>>();
  private readonly logger: Logger;
  private closing: Promise<void> | null = null;

  constructor(
    readonly name: string,
    private readonly options: BullMqJobQueueOptions,
  ) {
    this.logger = options.logger;
  }

  private get queue(): Queue {
    if (this.opened) return this.opened;
    const retention = this.options.retention ?? DEFAULT_JOB_RETENTION;
    const queue = new (loadBullMq().Queue)(this.name, {
      connection: this.options.connection,
      prefix: this.options.prefix,
      defaultJobOptions: {
        removeOnComplete: { age: retention.completed.ageSeconds, count: retention.completed.count },
        removeOnFail: { age: retention.failed.ageSeconds, count: retention.failed.count },
      },
    });
    queue.on('error', (err) => this.logger.warn({ queue: this.name, err }, 'queue error'));
    this.opened = queue;
    return queue;
  }

  async add(name: string, data: T, options: AddJobOptions = {}): Promise<string> {
    if (this.closing) throw new Error(`Queue ${this.name} is closed`);
    assertValidJobOptions(options);
    const job = await this.queue.add(
      name,
      data,
      definedOnly({
        jobId: options.jobId,
        delay: options.delayMs,
        attempts: options.attempts ?? 1,
        backoff: options.backoff && toBullBackoff(options.backoff),
      }),
    );
    return job.id ?? options.jobId ?? '';
  }

  process(handler: JobHandler<T>, options: ProcessOptions = {}): void {
    if (this.closing) throw new Error(`Queue ${this.name} is closed`);
    const concurrency = options.concurrency ?? 1;
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new TypeError('concurrency must be an integer >= 1');
    const { UnrecoverableError, Worker } = loadBullMq();
    const worker = new Worker(
      this.name,
      async (job: Job) => {
        try {
          await handler(toQueueJob<T>(job, job.attemptsMade + 1));
        } catch (thrown) {
          const error = toError(thrown);
          // BullMQ skips the remaining attempts only for its own UnrecoverableError.
          if (isPermanentJobError(error) && !(error instanceof UnrecoverableError)) {
            throw new UnrecoverableError(error.message);
          }
          throw error;
        }
      },
      definedOnly({
        connection: this.options.connection,
        prefix: this.options.prefix,
        concurrency,
        lockDuration: options.lockDurationMs,
        stalledInterval: options.stalledIntervalMs,
        maxStalledCount: options.maxStalledCount ?? DEFAULT_MAX_STALLED_COUNT,
        settings: { backoffStrategy: cappedBackoffStrategy },
      }),
    );
    worker.on('failed', (job, error) => {
      // `finishedOn` is set only when the job moved to failed for good (no retry scheduled).
      if (!job || job.finishedOn === undefined) return;
      this.track(this.notifyFailed(toQueueJob<T>(job, job.attemptsMade), error));
    });
    worker.on('stalled', (jobId) => this.logger.warn({ queue: this.name, job_id: jobId }, 'stalled job moved back to waiting'));
    worker.on('error', (err) => this.logger.warn({ queue: this.name, err }, 'worker error'));
    this.workers.push(worker);
  }

  onFailed(handler: FailedJobHandler<T>): void {
    this.failedHandlers.push(handler);
  }

  /**
   * Waits for in-flight jobs and failure hooks, then closes workers and the queue. With
   * `force`, workers stop at once: their active jobs keep their locks until those expire and
   * are then taken over by another worker (what a crash looks like to the rest of the system).
   */
  close(options: { force?: boolean } = {}): Promise<void> {
    this.closing ??= this.shutdown(options.force ?? false);
    return this.closing;
  }

  private async shutdown(force: boolean): Promise<void> {
    const results = await Promise.allSettled(this.workers.map((worker) => this.closeWorker(worker, force)));
    for (const result of results) {
      if (result.status === 'rejected') this.logger.warn({ queue: this.name, err: result.reason }, 'worker close failed');
    }
    while (this.pendingHooks.size > 0) await Promise.allSettled([...this.pendingHooks]);
    await this.opened?.close().catch((err: unknown) => this.logger.warn({ queue: this.name, err }, 'queue close failed'));
  }

  /**
   * A worker closed while its blocking connection is still initialising makes BullMQ reject that
   * initialisation with nobody listening (an unhandled rejection), so let it finish first, for a
   * bounded time in case Redis is unreachable.
   */
  private async closeWorker(worker: Worker, force: boolean): Promise<void> {
    const ready = worker.waitUntilReady().then(() => undefined, () => undefined);
    await raceTimeout(ready, WORKER_READY_WAIT_MS, () => undefined, { unref: true });
    await worker.close(force);
  }

  private track(hook: Promise<void>): void {
    this.pendingHooks.add(hook);
    void hook.finally(() => this.pendingHooks.delete(hook));
  }

  private async notifyFailed(job: QueueJob<T>, error: Error): Promise<void> {
    if (this.failedHandlers.length === 0) {
      this.logger.warn({ queue: this.name, job_id: job.id, err: error }, 'job failed after its last attempt');
      return;
    }
    for (const handler of this.failedHandlers) {
      try {
        await handler(job, error);
      } catch (err) {
        this.logger.error({ queue: this.name, job_id: job.id, err }, 'onFailed handler threw');
      }
    }
  }
}

/** BullMQ's backoff type for a capped schedule: its built-in ones have no cap. */
const CAPPED_BACKOFF_PREFIX = 'capped-';

interface StoredBackoff {
  type: string;
  delay?: number;
  /** Kept with the job's options in Redis, read back by `cappedBackoffStrategy`. */
  maxDelay?: number;
}

/** Our backoff as BullMQ job options: its built-in strategies, or ours when there is a cap. */
function toBullBackoff(backoff: BackoffOptions): StoredBackoff {
  if (backoff.maxDelayMs === undefined) return { type: backoff.type, delay: backoff.delayMs };
  return { type: `${CAPPED_BACKOFF_PREFIX}${backoff.type}`, delay: backoff.delayMs, maxDelay: backoff.maxDelayMs };
}

/** Every worker's custom strategy: the capped schedules, computed like the in-process queue does. */
function cappedBackoffStrategy(attemptsMade: number, type: string | undefined, _err: Error | undefined, job: MinimalJob | undefined): number {
  const stored = job?.opts.backoff as StoredBackoff | undefined;
  const base = type?.startsWith(CAPPED_BACKOFF_PREFIX) ? type.slice(CAPPED_BACKOFF_PREFIX.length) : null;
  if ((base !== 'exponential' && base !== 'fixed') || !stored) throw new Error(`Unknown backoff strategy ${type}`);
  return backoffDelay({ type: base, delayMs: stored.delay ?? 0, maxDelayMs: stored.maxDelay }, attemptsMade);
}

function toQueueJob<T>(job: Job, attempt: number): QueueJob<T> {
  return {
    id: job.id ?? '',
    name: job.name,
    data: job.data as T,
    attempt,
    maxAttempts: job.opts.attempts ?? 1,
    timestamp: job.timestamp,
  };
}

/** BullMQ merges options over its defaults with Object.assign, so an undefined value would erase a default. */
function definedOnly<O extends object>(options: O): O {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as O;
}
