import { Inject, Injectable } from '@nestjs/common';
import { EVENT_BUS, EventBus, QueuePayloadMap, QUEUES } from '@svc/events';
import { LOGGER, Logger } from '@svc/platform';
import { DISPATCHER_SETTINGS, DispatcherSettings } from '../dispatcher-settings';
import { QueueConsumer, QueueWorkerOptions } from '../infra/queue-worker';
import { FanOutEventUseCase } from './fan-out-event.usecase';

/** Consumer of `events`: fans every published event out to webhooks and the team chat. */
@Injectable()
export class EventsConsumer extends QueueConsumer<typeof QUEUES.events> {
  constructor(
    private readonly fanOut: FanOutEventUseCase,
    @Inject(EVENT_BUS) bus: EventBus,
    @Inject(DISPATCHER_SETTINGS) settings: DispatcherSettings,
    @Inject(LOGGER) logger: Logger,
  ) {
    super(QUEUES.events, bus, settings, logger);
  }

  protected workerOptions(): QueueWorkerOptions<QueuePayloadMap[typeof QUEUES.events]> {
    return {
      handler: async (job) => {
        await this.fanOut.execute(job);
      },
      concurrency: 5,
    };
  }
}
