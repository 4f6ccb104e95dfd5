import { Inject, Injectable } from '@nestjs/common';
import { EVENT_BUS, EventBus, QueuePayloadMap, QUEUES } from '@svc/events';
import { LOGGER, Logger } from '@svc/platform';
import { DISPATCHER_SETTINGS, DispatcherSettings } from '../dispatcher-settings';
import { QueueConsumer, QueueWorkerOptions } from '../infra/queue-worker';
import { PostChatNotificationUseCase } from './post-chat-notification.usecase';

/** Consumer of `chat-notification`: posts readable summaries to team chats. */
@Injectable()
export class ChatNotificationConsumer extends QueueConsumer<typeof QUEUES.chatNotification> {
  constructor(
    private readonly post: PostChatNotificationUseCase,
    @Inject(EVENT_BUS) bus: EventBus,
    @Inject(DISPATCHER_SETTINGS) settings: DispatcherSettings,
    @Inject(LOGGER) logger: Logger,
  ) {
    super(QUEUES.chatNotification, bus, settings, logger);
  }

  protected workerOptions(): QueueWorkerOptions<QueuePayloadMap[typeof QUEUES.chatNotification]> {
    return { handler: (job) => this.post.execute(job), concurrency: 5 };
  }
}
