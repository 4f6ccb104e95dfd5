import { OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import {
  BullMqJobQueue,
  EventBus,
  FailedJobHandler,
  JobHandler,
  JobQueue,
  ProcessOptions,
  QueueName,
  QueuePayloadMap,
} from '@svc/events';
import type { Logger } from '@svc/platform';
import type { DispatcherSettings } from '../dispatcher-settings';

export interface QueueWorkerOptions<T> extends ProcessOptions {
  handler: JobHandler<T>;
  /** After a job's last attempt failed (dead-lettering). */
  onFailed?: FailedJobHandler<T>;
}

/** A running consumer of one queue, started in `onModuleInit` and closed in `onModuleDestroy`. */
export interface QueueWorker {
  readonly queue: string;
  /** Jobs being handled right now. */
  readonly active: number;
  /** Stops taking jobs and waits for the ones in flight. */
  close(): Promise<void>;
}

/**
 * Starts a worker on `name`.
 *
 * With BullMQ the worker gets its own queue object on the bus's connection and prefix, so closing
 * it (on module destroy) stops only this consumer, never the producers other modules of the
 * process share through `bus.queue(name)`. In the embedded mode producers and consumers must meet
 * on the bus's one in-process queue object, which the runtime closes; once this worker is closed,
 * jobs still handed to it fail their attempt (and are dropped with the queue at exit, as every
 * in-process job is).
 */
export function startQueueWorker<N extends QueueName>(
  bus: EventBus,
  name: N,
  options: QueueWorkerOptions<QueuePayloadMap[N]>,
  logger: Logger,
): QueueWorker {
  type T = QueuePayloadMap[N];
  const owned = bus.kind === 'bullmq' && bus.redis !== null;
  const queue: JobQueue<T> = owned
    ? new BullMqJobQueue<T>(name, { connection: bus.redis as NonNullable<EventBus['redis']>, prefix: bus.prefix, logger })
    : bus.queue(name);
  const inFlight = new Set<Promise<void>>();
  let stopped = false;

  const { handler, onFailed, ...processOptions } = options;
  queue.process(async (job) => {
    // BullMQ stops fetching on close by itself; the shared in-process queue keeps handing jobs over.
    if (stopped && !owned) throw new Error(`the ${name} worker of this process is stopped`);
    const run = handler(job);
    inFlight.add(run);
    try {
      await run;
    } finally {
      inFlight.delete(run);
    }
  }, processOptions);
  if (onFailed) {
    queue.onFailed(async (job, error) => {
      if (stopped && !owned) {
        logger.warn({ queue: name, job_id: job.id }, 'job failed while the in-process worker was stopping; not dead-lettered');
        return;
      }
      await onFailed(job, error);
    });
  }

  return {
    queue: name,
    get active() {
      return inFlight.size;
    },
    close: async () => {
      stopped = true;
      if (owned) await queue.close();
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
  };
}

/**
 * Base of the dispatcher's queue consumers: starts the worker on module init with the lock settings
 * every consumer shares, and drains it on module destroy. A subclass names its queue and its handler.
 */
export abstract class QueueConsumer<N extends QueueName> implements OnModuleInit, OnModuleDestroy {
  private worker: QueueWorker | null = null;

  protected constructor(
    private readonly queueName: N,
    protected readonly bus: EventBus,
    protected readonly settings: DispatcherSettings,
    protected readonly logger: Logger,
  ) {}

  /** The handler, concurrency and dead-letter hook of this consumer. */
  protected abstract workerOptions(): QueueWorkerOptions<QueuePayloadMap[N]>;

  onModuleInit(): void {
    const lock = { lockDurationMs: this.settings.lockDurationMs, stalledIntervalMs: this.settings.lockDurationMs };
    this.worker = startQueueWorker(this.bus, this.queueName, { ...lock, ...this.workerOptions() }, this.logger);
  }

  async onModuleDestroy(): Promise<void> {
    await this.worker?.close();
  }
}
