import { DEAD_LETTER_JOB_NAME, JobQueue, QueueJob, QUEUES, WebhookDeadLetterJob, WebhookDeliveryJob } from '@svc/events';

/**
 * Moves a delivery that failed its last attempt to the `webhook-dead-letter` queue (the consumer
 * marks its record as a dead letter and counts the failure on the webhook). Retried there if the
 * store is briefly unavailable; job id `dead.<delivery job id>` so it happens once.
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
