import type { JobQueue } from './job-queue';
import type { DeadLetterJob } from './queues';

/** Job name of dead-letter jobs. */
export const DEAD_LETTER_JOB_NAME = 'dead-letter';

/**
 * Moves every job of `source` that fails its last attempt to `deadLetter`, with the error and
 * the number of attempts made. Register it in the process that runs `source`'s worker.
 */
export function deadLetterTo<T>(source: JobQueue<T>, deadLetter: JobQueue<DeadLetterJob<T>>): void {
  source.onFailed(async (job, error) => {
    await deadLetter.add(DEAD_LETTER_JOB_NAME, {
      queue: source.name,
      jobId: job.id,
      name: job.name,
      data: job.data,
      error: error.message,
      attemptsMade: job.attempt,
      failedAt: new Date().toISOString(),
    });
  });
}
