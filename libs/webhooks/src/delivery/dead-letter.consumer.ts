import { Inject, Injectable } from '@nestjs/common';
import { EVENT_BUS, EventBus, QueuePayloadMap, QUEUES } from '@svc/events';
import { LOGGER, Logger } from '@svc/platform';
import { DISPATCHER_SETTINGS, DispatcherSettings } from '../dispatcher-settings';
import { QueueConsumer, QueueWorkerOptions } from '../infra/queue-worker';
import { RecordDeadLetterUseCase } from './record-dead-letter.usecase';

/** Consumer of `webhook-dead-letter`: records dead letters on their delivery records. */
@Injectable()
export class DeadLetterConsumer extends QueueConsumer<typeof QUEUES.webhookDeadLetter> {
  constructor(
    private readonly recordDeadLetter: RecordDeadLetterUseCase,
    @Inject(EVENT_BUS) bus: EventBus,
    @Inject(DISPATCHER_SETTINGS) settings: DispatcherSettings,
    @Inject(LOGGER) logger: Logger,
  ) {
    super(QUEUES.webhookDeadLetter, bus, settings, logger);
  }

  protected workerOptions(): QueueWorkerOptions<QueuePayloadMap[typeof QUEUES.webhookDeadLetter]> {
    return { handler: (job) => this.recordDeadLetter.execute(job), concurrency: 2 };
  }
}
