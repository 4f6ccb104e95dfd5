/**
 * A small job-queue contract with two implementations: BullMQ on Redis (production) and an
 * in-process queue (the embedded mode of `npm start`). Both give the same semantics:
 * JSON-serialised job data, delays, attempts with backoff, jobId deduplication, an `onFailed`
 * hook once a job has exhausted its attempts, and a `close()` that waits for in-flight work.
 * Delivery is at-least-once: handlers must be idempotent.
 */

export interface BackoffOptions {
  /** `exponential`: retry n waits delayMs * 2^(n-1) (D, 2D, 4D, ...). `fixed`: always delayMs. */
  type: 'exponential' | 'fixed';
  delayMs: number;
  /** Longest wait between two tries (caps the exponential growth); none by default. */
  maxDelayMs?: number;
}

export interface AddJobOptions {
  /**
   * Deduplication key: adding a job whose id is still pending (waiting, delayed or active) is a
   * no-op. BullMQ also ignores ids of finished jobs it still retains. No `:`, not an integer.
   */
  jobId?: string;
  /** Run no earlier than this many milliseconds from now. */
  delayMs?: number;
  /** Total tries including the first (default 1). */
  attempts?: number;
  /** Wait between tries; without it a failed job is retried at once. */
  backoff?: BackoffOptions;
}

/** What a handler receives. */
export interface QueueJob<T> {
  id: string;
  name: string;
  data: T;
  /** 1 for the first try, 2 for the first retry, ... */
  attempt: number;
  /** Total tries allowed. */
  maxAttempts: number;
  /** Epoch milliseconds when the job was added. */
  timestamp: number;
}

export type JobHandler<T> = (job: QueueJob<T>) => Promise<void>;

/** Called once per job after its last attempt failed. `job.attempt` is the number of tries made. */
export type FailedJobHandler<T> = (job: QueueJob<T>, error: Error) => void | Promise<void>;

export interface ProcessOptions {
  /** Jobs handled at the same time by this worker (default 1). */
  concurrency?: number;
  /**
   * BullMQ only: how long a job's lock lives without renewal (default 30 s). A worker that dies
   * mid-job loses its lock after this long and the job is handed to another worker.
   */
  lockDurationMs?: number;
  /** BullMQ only: how often stalled jobs are looked for (default 30 s). */
  stalledIntervalMs?: number;
  /** BullMQ only: times a job may stall before it fails (default 2). */
  maxStalledCount?: number;
}

export interface JobQueue<T> {
  readonly name: string;
  readonly kind: 'bullmq' | 'in-process';
  /** Enqueues a job; resolves with its id (the existing id for a deduplicated add). */
  add(name: string, data: T, options?: AddJobOptions): Promise<string>;
  /** Starts a worker for this queue. Several workers may run; each takes its own concurrency. */
  process(handler: JobHandler<T>, options?: ProcessOptions): void;
  /**
   * Registers a hook for jobs that failed their last attempt (dead-lettering). With BullMQ it
   * fires in the process whose worker ran the last attempt, so register it beside `process`.
   */
  onFailed(handler: FailedJobHandler<T>): void;
  /** Stops the workers after their in-flight jobs (and failure hooks) finish, then closes. */
  close(): Promise<void>;
}

/** Milliseconds to wait before retry number `retry` (1 = the first retry). */
export function backoffDelay(backoff: BackoffOptions | undefined, retry: number): number {
  if (!backoff) return 0;
  const delay = backoff.type === 'fixed' ? backoff.delayMs : Math.round(backoff.delayMs * 2 ** (retry - 1));
  return backoff.maxDelayMs === undefined ? delay : Math.min(delay, backoff.maxDelayMs);
}

/**
 * Rejects options both implementations cannot honour alike, so code that runs embedded also
 * runs on BullMQ: a jobId with `:` or that is an integer, negative delays, attempts below 1.
 */
export function assertValidJobOptions(options: AddJobOptions): void {
  const { jobId, delayMs, attempts, backoff } = options;
  if (jobId !== undefined) {
    if (typeof jobId !== 'string' || jobId.length === 0) throw new TypeError('jobId must be a non-empty string');
    if (jobId.includes(':')) throw new TypeError(`jobId must not contain ':' (${jobId})`);
    if (`${parseInt(jobId, 10)}` === jobId) throw new TypeError(`jobId must not be an integer (${jobId})`);
  }
  if (delayMs !== undefined && !(Number.isFinite(delayMs) && delayMs >= 0)) {
    throw new TypeError('delayMs must be a finite number >= 0');
  }
  if (attempts !== undefined && !(Number.isInteger(attempts) && attempts >= 1)) {
    throw new TypeError('attempts must be an integer >= 1');
  }
  if (backoff !== undefined && !(Number.isFinite(backoff.delayMs) && backoff.delayMs >= 0)) {
    throw new TypeError('backoff.delayMs must be a finite number >= 0');
  }
  if (backoff?.maxDelayMs !== undefined && !(Number.isFinite(backoff.maxDelayMs) && backoff.maxDelayMs >= 0)) {
    throw new TypeError('backoff.maxDelayMs must be a finite number >= 0');
  }
}

export function toError(value: unknown): Error {
  return value instanceof Error ? value : new Error(typeof value === 'string' ? value : JSON.stringify(value));
}

/**
 * Throw from a handler to fail the job at once, without the remaining retries (e.g. a webhook
 * receiver answering 410 Gone). `onFailed` still runs.
 */
export class PermanentJobError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PermanentJobError';
  }
}

export function isPermanentJobError(error: unknown): boolean {
  return error instanceof Error && (error.name === 'PermanentJobError' || error.name === 'UnrecoverableError');
}
