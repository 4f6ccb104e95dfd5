import { Writable } from 'node:stream';
import pino from 'pino';
import { createEvent, createEventBus, EVENT_SOURCES, eventJobOptions, GatewayEvent, QUEUES } from '@svc/events';
import type { DispatcherSettings } from '../dispatcher-settings';
import { EventsConsumer } from './events.consumer';
import type { FanOutEventUseCase } from './fan-out-event.usecase';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('EventsConsumer', () => {
  it('retries a failing fan-out on the events schedule and logs the event at error level when it gives up', async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
        done();
      },
    });
    const logger = pino({ level: 'info' }, sink);
    const bus = createEventBus({}, logger);
    const tries: number[] = [];
    // The store is down: every fan-out fails.
    const fanOut = {
      execute: async (job: { attempt: number }) => {
        tries.push(job.attempt);
        throw new Error('store unavailable');
      },
    };
    const settings = { lockDurationMs: 30_000 } as DispatcherSettings;
    const consumer = new EventsConsumer(fanOut as unknown as FanOutEventUseCase, bus, settings, logger);
    consumer.onModuleInit();
    try {
      const event = createEvent('budget.exceeded', 'org_lost', { blocked_by: 'daily_budget', daily_spent: 1, daily_budget: 1, model: 'gpt-4o', estimated_cost: 0.1, timestamp: new Date().toISOString() }, EVENT_SOURCES.gateway) as GatewayEvent;
      // The production schedule (ten tries over ten minutes) with its waits shrunk to a millisecond.
      const options = eventJobOptions(event);
      await bus.queue(QUEUES.events).add(event.type, { event }, { ...options, backoff: { type: 'exponential', delayMs: 1, maxDelayMs: 2 } });
      for (let i = 0; i < 200 && !lines.some((line) => line['alert'] === 'webhook_event_lost'); i += 1) await sleep(10);
      expect(tries).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(lines.find((line) => line['alert'] === 'webhook_event_lost')).toMatchObject({
        level: 50,
        org_id: 'org_lost',
        event_id: event.id,
        event_type: 'budget.exceeded',
        attempts: 10,
        msg: 'event fan-out failed after its last attempt; the event is lost for its webhooks and team chat',
      });
    } finally {
      await consumer.onModuleDestroy();
      await bus.close();
    }
  });
});
