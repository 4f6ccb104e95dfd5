import { DynamicModule, Global, Module } from '@nestjs/common';
import type { EventBus } from './event-bus';

/** Injection token of the process's EventBus. */
export const EVENT_BUS = Symbol('EVENT_BUS');
/** Injection token of the bus's EventPublisher. */
export const EVENT_PUBLISHER = Symbol('EVENT_PUBLISHER');

/**
 * Makes one EventBus injectable everywhere in a Nest application. The bus is created and closed
 * by the runtime that owns it (it may be shared by several apps in one process), not by Nest.
 */
@Global()
@Module({})
export class EventsModule {
  static forRoot(bus: EventBus): DynamicModule {
    return {
      module: EventsModule,
      global: true,
      providers: [
        { provide: EVENT_BUS, useValue: bus },
        { provide: EVENT_PUBLISHER, useValue: bus.publisher },
      ],
      exports: [EVENT_BUS, EVENT_PUBLISHER],
    };
  }
}
