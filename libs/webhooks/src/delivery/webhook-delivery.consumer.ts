import { Inject, Injectable } from '@nestjs/common';
import { EVENT_BUS, EventBus, QueuePayloadMap, QUEUES } from '@svc/events';
import { LOGGER, Logger } from '@svc/platform';
import { DISPATCHER_SETTINGS, DispatcherSettings } from '../dispatcher-settings';
import { QueueConsumer, QueueWorkerOptions } from '../infra/queue-worker';
import { enqueueDeadLetter } from './dead-letter.producer';
import { DeliverWebhookUseCase } from './deliver-webhook.usecase';

/** Deliveries handled at once per process: a slow receiver holds one slot for up to the timeout. */
const DELIVERY_CONCURRENCY = 20;

/**
 * Consumer of `webhook-delivery`: one attempt per job run. The attempt that ends a delivery marks
 * its record a dead letter itself (DeliverWebhookUseCase); the failure hook only hands the failed
 * job to `webhook-dead-letter`, the backstop for a last attempt that could not write its outcome
 * (the store was down). A dispatcher killed mid-delivery stops renewing the job's lock, and
 * once it expires (`WEBHOOK_WORKER_LOCK_MS`) another dispatcher, or this one restarted, runs the
 * job again: same event, same id, at least once.
 */
@Injectable()
export class WebhookDeliveryConsumer extends QueueConsumer<typeof QUEUES.webhookDelivery> {
  constructor(
    private readonly deliver: DeliverWebhookUseCase,
    @Inject(EVENT_BUS) bus: EventBus,
    @Inject(DISPATCHER_SETTINGS) settings: DispatcherSettings,
    @Inject(LOGGER) logger: Logger,
  ) {
    super(QUEUES.webhookDelivery, bus, settings, logger);
  }

  protected workerOptions(): QueueWorkerOptions<QueuePayloadMap[typeof QUEUES.webhookDelivery]> {
    return {
      handler: (job) => this.deliver.execute(job),
      onFailed: async (job, error) => {
        await enqueueDeadLetter(this.bus.queue(QUEUES.webhookDeadLetter), job, error, this.settings.retryBaseMs);
      },
      concurrency: DELIVERY_CONCURRENCY,
    };
  }
}
