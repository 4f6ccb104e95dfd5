import { Inject, Injectable } from '@nestjs/common';
import { EVENT_BUS, EventBus, QueuePayloadMap, QUEUES } from '@svc/events';
import { LOGGER, Logger } from '@svc/platform';
import { DISPATCHER_SETTINGS, DispatcherSettings } from '../dispatcher-settings';
import { QueueConsumer, QueueWorkerOptions } from '../infra/queue-worker';
import { FanOutEventUseCase } from './fan-out-event.usecase';

/** Consumer of `events`: fans every published event out to webhooks and the team chat; logs at error level an event it gives up on. */
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
      // After about ten minutes of retries (EVENT_JOB_OPTIONS): the store or Redis stayed down.
      onFailed: (job, error) => {
        const { event } = job.data;
        this.logger.error(
          { alert: 'webhook_event_lost', org_id: event?.orgid, event_id: event?.id, event_type: event?.type, attempts: job.attempt, err: error },
          'event fan-out failed after its last attempt; the event is lost for its webhooks and team chat',
        );
      },
      concurrency: 5,
    };
  }
}
