import { Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import type { Repositories } from '@svc/domain';
import { EVENT_BUS, EVENT_PUBLISHER, EventBus, EventPublisher } from '@svc/events';
import { APP_CONFIG, AppConfig, LOGGER, Logger, Redis, REDIS } from '@svc/platform';
import { REPOSITORIES } from '@svc/runtime';
import { AnomalyDetector } from './anomaly/anomaly-detector';
import { ChatNotificationConsumer } from './chat/chat-notification.consumer';
import { PostChatNotificationUseCase } from './chat/post-chat-notification.usecase';
import { DeadLetterConsumer } from './delivery/dead-letter.consumer';
import { DeliverWebhookUseCase } from './delivery/deliver-webhook.usecase';
import { DeliveryRetrySweep } from './delivery/delivery-retry-sweep';
import { RecordDeadLetterUseCase } from './delivery/record-dead-letter.usecase';
import { WebhookDeliveryConsumer } from './delivery/webhook-delivery.consumer';
import { DISPATCHER_SETTINGS, DispatcherSettings, dispatcherSettings } from './dispatcher-settings';
import { EVENT_DEDUP, EventDedup } from './fanout/event-dedup';
import { EventsConsumer } from './fanout/events.consumer';
import { FanOutEventUseCase } from './fanout/fan-out-event.usecase';
import { createOnceGate, ONCE_GATE, OnceGate } from './infra/once-gate';
import { OUTBOUND_POSTER, OutboundPoster } from './infra/outbound-poster';

/** Closes the outbound connection pool after every consumer has finished (destroy hooks run first). */
@Injectable()
class OutboundPosterCloser implements OnApplicationShutdown {
  constructor(@Inject(OUTBOUND_POSTER) private readonly poster: OutboundPoster) {}

  async onApplicationShutdown(): Promise<void> {
    await this.poster.close();
  }
}

/**
 * The webhook dispatcher (docs/webhooks.md): consumers of `events` (fan-out and dedup),
 * `webhook-delivery` (signed CloudEvents with retries), `webhook-dead-letter` and
 * `chat-notification`, plus the cost-anomaly detector and the sweep that puts back retries a queue lost. Imported by `apps/webhook-dispatcher` and,
 * in process on the embedded queues, by `apps/standalone`. Workers start in `onModuleInit` and
 * close in `onModuleDestroy`.
 */
@Module({
  providers: [
    { provide: DISPATCHER_SETTINGS, inject: [APP_CONFIG], useFactory: (config: AppConfig) => dispatcherSettings(config) },
    { provide: ONCE_GATE, inject: [REDIS], useFactory: (redis: Redis | null) => createOnceGate(redis) },
    {
      provide: OUTBOUND_POSTER,
      inject: [DISPATCHER_SETTINGS],
      useFactory: (settings: DispatcherSettings) =>
        new OutboundPoster({ allowPrivate: settings.allowPrivate, allowHttp: settings.allowHttp, timeoutMs: settings.timeoutMs }),
    },
    {
      provide: EVENT_DEDUP,
      inject: [ONCE_GATE, DISPATCHER_SETTINGS, EVENT_BUS],
      useFactory: (gate: OnceGate, settings: DispatcherSettings, bus: EventBus) => new EventDedup(gate, settings.dedupWindowMs, bus.prefix),
    },
    {
      provide: AnomalyDetector,
      inject: [REPOSITORIES, EVENT_PUBLISHER, ONCE_GATE, DISPATCHER_SETTINGS, EVENT_BUS, LOGGER],
      useFactory: (repos: Repositories, publisher: EventPublisher, gate: OnceGate, settings: DispatcherSettings, bus: EventBus, logger: Logger) =>
        new AnomalyDetector(repos, publisher, gate, { intervalMs: settings.anomalyIntervalMs, namespace: bus.prefix }, logger),
    },
    OutboundPosterCloser,
    FanOutEventUseCase,
    DeliverWebhookUseCase,
    RecordDeadLetterUseCase,
    PostChatNotificationUseCase,
    EventsConsumer,
    WebhookDeliveryConsumer,
    DeadLetterConsumer,
    ChatNotificationConsumer,
    DeliveryRetrySweep,
  ],
})
export class WebhookDispatcherModule {}
