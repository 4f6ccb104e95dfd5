import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { ChatNotificationJob, createEvent, createEventBus, EVENT_SOURCES, EventBus, QueueJob, QUEUES } from '@svc/events';
import { startQueueWorker } from './queue-worker';

const logger = pino({ level: 'silent' });
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const job = (): ChatNotificationJob => ({
  event: createEvent('budget.warning', 'org_qw', { budget_type: 'daily', threshold_pct: 50, spent: 5, budget: 10, utilization_pct: 50, timestamp: new Date().toISOString() }, EVENT_SOURCES.orgApi),
});

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 250 && !check(); i += 1) await sleep(20);
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

describe('startQueueWorker', () => {
  const buses: EventBus[] = [];
  afterAll(async () => {
    for (const bus of buses) {
      if (bus.redis) {
        const keys = await bus.redis.keys(`${bus.prefix}:*`);
        if (keys.length) await bus.redis.del(...keys);
      }
      await bus.close();
    }
  });

  it('on BullMQ, closing the worker leaves the shared producer open; a later worker takes the job', async () => {
    const bus = createEventBus({ REDIS_URL: process.env.TEST_REDIS_URL }, logger, { prefix: `test-qw-${randomBytes(4).toString('hex')}` });
    buses.push(bus);
    const handled: string[] = [];
    const worker = startQueueWorker(bus, QUEUES.chatNotification, { handler: async (j) => void handled.push(j.id) }, logger);
    const first = await bus.queue(QUEUES.chatNotification).add('one', job(), { jobId: 'first' });
    await until(() => handled.includes(first), 'the first job');
    await worker.close();
    expect(worker.active).toBe(0);
    // The producer other modules share through the bus still works after this consumer closed.
    const second = await bus.queue(QUEUES.chatNotification).add('two', job(), { jobId: 'second' });
    await sleep(200);
    expect(handled).toEqual(['first']);
    const next = startQueueWorker(bus, QUEUES.chatNotification, { handler: async (j) => void handled.push(j.id) }, logger);
    await until(() => handled.includes(second), 'the second job');
    await next.close();
  });

  it('in process, jobs handed to a closed worker fail their attempt and are not dead-lettered', async () => {
    const bus = createEventBus({}, logger);
    buses.push(bus);
    const handled: string[] = [];
    const failed: QueueJob<ChatNotificationJob>[] = [];
    let release!: () => void;
    const slow = new Promise<void>((resolve) => (release = resolve));
    const worker = startQueueWorker(
      bus,
      QUEUES.chatNotification,
      {
        handler: async (j) => {
          await slow;
          handled.push(j.id);
        },
        onFailed: (j) => void failed.push(j),
      },
      logger,
    );
    await bus.queue(QUEUES.chatNotification).add('one', job(), { jobId: 'in-flight' });
    await until(() => worker.active === 1, 'the job to start');
    const closing = worker.close();
    await sleep(50);
    release();
    await closing; // waited for the job in flight
    expect(handled).toEqual(['in-flight']);
    await bus.queue(QUEUES.chatNotification).add('two', job(), { jobId: 'after-close' });
    await sleep(100);
    expect(handled).toEqual(['in-flight']);
    expect(failed).toEqual([]);
  });
});
