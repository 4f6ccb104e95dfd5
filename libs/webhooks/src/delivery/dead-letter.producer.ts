import { DEAD_LETTER_JOB_NAME, JobQueue, QueueJob, QUEUES, WebhookDeadLetterJob, WebhookDeliveryJob } from '@svc/events';

/**
 * Hands a delivery job that failed its last attempt to the `webhook-dead-letter` queue. Its
 * consumer makes sure the record is a dead letter with the failure counted; the last attempt
 * normally did both already, so this matters when it could not (the store was down). Retried
 * there while the store is unavailable; job id `dead.<delivery job id>` so it happens once.
 */
export function enqueueDeadLetter(
  queue: JobQueue<WebhookDeadLetterJob>,
  job: QueueJob<WebhookDeliveryJob>,
  error: Error,
  retryBaseMs: number,
): Promise<string> {
  return queue.add(
    DEAD_LETTER_JOB_NAME,
    {
      queue: QUEUES.webhookDelivery,
      jobId: job.id,
      name: job.name,
      data: job.data,
      error: error.message,
      attemptsMade: job.attempt,
      failedAt: new Date().toISOString(),
    },
    { jobId: `dead.${job.id}`, attempts: 5, backoff: { type: 'exponential', delayMs: retryBaseMs } },
  );
}
