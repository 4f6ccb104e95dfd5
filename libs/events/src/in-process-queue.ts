import type { Logger } from 'pino';
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

interface PendingJob {
  id: string;
  name: string;
  /** JSON text, parsed afresh for every attempt (the same copy semantics as BullMQ). */
  payload: string;
  attemptsMade: number;
  maxAttempts: number;
  backoff?: BackoffOptions;
  timestamp: number;
  timer?: NodeJS.Timeout;
}

interface LocalWorker<T> {
  handler: JobHandler<T>;
  concurrency: number;
  active: number;
}

/**
 * The embedded-mode JobQueue: jobs live in this process's memory (lost on exit), delays are
 * unref'd timers so they never keep the process alive. Same contract as BullMqJobQueue.
 */
export class InProcessJobQueue<T> implements JobQueue<T> {
  readonly kind = 'in-process' as const;
  /** Every job not finished yet (waiting, delayed or active), by id: the dedup set. */
  private readonly pending = new Map<string, PendingJob>();
  private readonly ready: PendingJob[] = [];
  private readonly workers: LocalWorker<T>[] = [];
  private readonly failedHandlers: FailedJobHandler<T>[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private sequence = 0;
  private closing: Promise<void> | null = null;

  constructor(
    readonly name: string,
    private readonly logger: Logger,
  ) {}

  async add(name: string, data: T, options: AddJobOptions = {}): Promise<string> {
    if (this.closing) throw new Error(`Queue ${this.name} is closed`);
    assertValidJobOptions(options);
    const id = options.jobId ?? String(++this.sequence);
    if (this.pending.has(id)) return id;
    const job: PendingJob = {
      id,
      name,
      payload: JSON.stringify(data) ?? 'null',
      attemptsMade: 0,
      maxAttempts: options.attempts ?? 1,
      backoff: options.backoff,
      timestamp: Date.now(),
    };
    this.pending.set(id, job);
    this.schedule(job, options.delayMs ?? 0);
    return id;
  }

  process(handler: JobHandler<T>, options: ProcessOptions = {}): void {
    if (this.closing) throw new Error(`Queue ${this.name} is closed`);
    const concurrency = options.concurrency ?? 1;
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new TypeError('concurrency must be an integer >= 1');
    this.workers.push({ handler, concurrency, active: 0 });
    this.pump();
  }

  onFailed(handler: FailedJobHandler<T>): void {
    this.failedHandlers.push(handler);
  }

  close(): Promise<void> {
    this.closing ??= this.drain();
    return this.closing;
  }

  /** Jobs added and not finished yet (for health and tests). */
  get size(): number {
    return this.pending.size;
  }

  private async drain(): Promise<void> {
    const dropped = this.pending.size - this.activeCount();
    for (const job of this.pending.values()) if (job.timer) clearTimeout(job.timer);
    this.ready.length = 0;
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
    this.pending.clear();
    if (dropped > 0) this.logger.warn({ queue: this.name, dropped }, 'in-process queue closed with jobs not yet run');
  }

  private activeCount(): number {
    return this.workers.reduce((sum, worker) => sum + worker.active, 0);
  }

  private schedule(job: PendingJob, delayMs: number): void {
    if (delayMs <= 0) {
      this.ready.push(job);
      this.pump();
      return;
    }
    job.timer = setTimeout(() => {
      job.timer = undefined;
      if (this.closing) return;
      this.ready.push(job);
      this.pump();
    }, delayMs);
    job.timer.unref();
  }

  private pump(): void {
    while (!this.closing && this.ready.length > 0) {
      const worker = this.workers.find((w) => w.active < w.concurrency);
      if (!worker) return;
      const job = this.ready.shift() as PendingJob;
      worker.active += 1;
      const run = this.execute(job, worker);
      this.inFlight.add(run);
      void run.finally(() => {
        this.inFlight.delete(run);
        worker.active -= 1;
        this.pump();
      });
    }
  }

  /** Runs one attempt; never rejects. */
  private async execute(job: PendingJob, worker: LocalWorker<T>): Promise<void> {
    const context = this.context(job);
    try {
      await worker.handler(context);
      this.pending.delete(job.id);
    } catch (thrown) {
      const error = toError(thrown);
      job.attemptsMade += 1;
      const retry = job.attemptsMade < job.maxAttempts && !isPermanentJobError(error);
      if (retry && !this.closing) {
        this.schedule(job, backoffDelay(job.backoff, job.attemptsMade));
        return;
      }
      this.pending.delete(job.id);
      if (retry) return; // closing: the retry is dropped with the rest of the queue
      await this.notifyFailed({ ...context, attempt: job.attemptsMade }, error);
    }
  }

  private context(job: PendingJob): QueueJob<T> {
    return {
      id: job.id,
      name: job.name,
      data: JSON.parse(job.payload) as T,
      attempt: job.attemptsMade + 1,
      maxAttempts: job.maxAttempts,
      timestamp: job.timestamp,
    };
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
