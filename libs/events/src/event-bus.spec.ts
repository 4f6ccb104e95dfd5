import { Inject, Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { createRedis } from '@svc/platform';
import { createEvent, EVENT_SOURCES, GatewayEvent } from './cloud-event';
import { createEventBus, EventBus } from './event-bus';
import { SAMPLE_DATA } from './event-fixtures';
import { EVENT_BUS, EVENT_PUBLISHER, EventsModule } from './events.module';
import type { QueueJob } from './job-queue';
import { EventPublisher, RecordingPublisher } from './publisher';
import { EventJob, QUEUES } from './queues';
import { captureLogger, deferred, deleteKeys, sleep, uniquePrefix, within } from './spec-helpers';

const REDIS_URL = process.env.TEST_REDIS_URL as string;

function budgetExceeded(orgId = 'org_1'): GatewayEvent {
  return createEvent('budget.exceeded', orgId, SAMPLE_DATA['budget.exceeded'], EVENT_SOURCES.gateway);
}

describe.each([
  ['in-process', () => ({})],
  ['bullmq', () => ({ REDIS_URL })],
] as const)('createEventBus (%s)', (kind, config) => {
  let bus: EventBus;
  let prefix: string;

  beforeEach(() => {
    prefix = uniquePrefix('bus');
    bus = createEventBus(config(), captureLogger().logger, { prefix, name: 'events-spec' });
  });
  afterEach(async () => {
    if (bus.redis?.status === 'ready') await deleteKeys(bus.redis, prefix);
    await bus.close();
  });

  it('picks its implementation from REDIS_URL and shares one queue per name', () => {
    expect(bus.kind).toBe(kind);
    expect(bus.prefix).toBe(prefix);
    expect(bus.redis === null).toBe(kind === 'in-process');
    expect(bus.queue(QUEUES.events)).toBe(bus.queue(QUEUES.events));
    expect(bus.queue(QUEUES.events).kind).toBe(kind);
    expect(bus.queue(QUEUES.webhookDelivery)).not.toBe(bus.queue(QUEUES.events));
  });

  it('publishes each event once onto the events queue, keyed by its id', async () => {
    const event = budgetExceeded();
    expect(await bus.publisher.publish(event)).toBe(true);
    expect(await bus.publisher.publish(event)).toBe(true); // a republished event is a no-op
    const other = budgetExceeded('org_2');
    await bus.publisher.publish(other);
    const jobs: QueueJob<EventJob>[] = [];
    const two = deferred();
    bus.queue(QUEUES.events).process(async (job) => {
      jobs.push(job);
      if (jobs.length === 2) two.resolve();
    });
    await within(two.promise, 3_000, 'two events');
    await sleep(150);
    expect(jobs).toHaveLength(2);
    const first = jobs.find((job) => job.id === event.id);
    expect(first).toMatchObject({ name: 'budget.exceeded', data: { event } });
    expect(first?.maxAttempts).toBe(10);
    expect(jobs.map((job) => job.data.event.orgid).sort()).toEqual(['org_1', 'org_2']);
  });

  it('refuses new queues once closed', async () => {
    await bus.close();
    expect(() => bus.queue('anything')).toThrow(/closed/);
  });
});

describe('createEventBus on Redis', () => {
  it('keeps its keys under its prefix and quits its connection on close', async () => {
    const prefix = uniquePrefix('keys');
    const bus = createEventBus({ REDIS_URL }, captureLogger().logger, { prefix });
    const probe = createRedis(REDIS_URL, 'queue', 'events-spec-probe');
    try {
      await bus.publisher.publish(budgetExceeded());
      const keys = await probe.keys(`${prefix}:*`);
      expect(keys.length).toBeGreaterThan(0);
      expect(keys.every((key) => key.startsWith(`${prefix}:events:`))).toBe(true);
      await bus.close();
      expect(bus.redis?.status).toBe('end');
    } finally {
      await deleteKeys(probe, prefix);
      await probe.quit();
      await bus.close();
    }
  });

  it('does not fail or hang a publish when Redis is unreachable', async () => {
    const { logger, lines } = captureLogger();
    const bus = createEventBus({ REDIS_URL: 'redis://127.0.0.1:1' }, logger, { publishTimeoutMs: 200 });
    const started = Date.now();
    await expect(bus.publisher.publish(budgetExceeded())).resolves.toBe(false);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'event publish failed or timed out; the event may be lost', org_id: 'org_1' }));
    await within(bus.close(), 5_000, 'close with Redis down');
  });

  it('rejects a prefix BullMQ could not namespace', () => {
    expect(() => createEventBus({}, captureLogger().logger, { prefix: 'a:b' })).toThrow(/prefix/);
  });
});

@Injectable()
class Emitter {
  constructor(
    @Inject(EVENT_PUBLISHER) readonly publisher: EventPublisher,
    @Inject(EVENT_BUS) readonly bus: EventBus,
  ) {}
}

@Module({ providers: [Emitter] })
class FeatureModule {}

describe('EventsModule', () => {
  it('makes the bus and its publisher injectable in every module', async () => {
    const bus = createEventBus({}, captureLogger().logger);
    @Module({ imports: [EventsModule.forRoot(bus), FeatureModule] })
    class RootModule {}
    const app = await NestFactory.createApplicationContext(RootModule, { logger: false });
    try {
      const emitter = app.get(Emitter);
      expect(emitter.bus).toBe(bus);
      expect(emitter.publisher).toBe(bus.publisher);
    } finally {
      await app.close();
      await bus.close();
    }
  });
});

describe('RecordingPublisher', () => {
  it('records events and waits for one that has not been published yet', async () => {
    const recorder = new RecordingPublisher();
    const waiting = recorder.waitFor('approval.requested', 1_000);
    await recorder.publish(budgetExceeded());
    const approval = createEvent('approval.requested', 'org_1', SAMPLE_DATA['approval.requested'], EVENT_SOURCES.gateway);
    await recorder.publish(approval);
    await expect(waiting).resolves.toBe(approval);
    expect(recorder.events).toHaveLength(2);
    expect(recorder.ofType('budget.exceeded')).toHaveLength(1);
    expect(recorder.last('approval.requested')?.data.approval_id).toBe('apr_xyz');
    await expect(recorder.waitFor('budget.exceeded')).resolves.toMatchObject({ type: 'budget.exceeded' });
    await expect(recorder.waitFor('agent.failed', 50)).rejects.toThrow(/agent.failed/);
    recorder.clear();
    expect(recorder.events).toHaveLength(0);
  });
});
