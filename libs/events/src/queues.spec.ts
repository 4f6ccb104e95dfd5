import { assertValidJobOptions, backoffDelay } from './job-queue';
import {
  EVENT_JOB_OPTIONS,
  eventJobOptions,
  eventRetrySchedule,
  QUEUES,
  WEBHOOK_MAX_ATTEMPTS,
  webhookDeliveryJobId,
  webhookDeliveryJobOptions,
  webhookRetrySchedule,
} from './queues';

describe('queue definitions', () => {
  it('names every queue so BullMQ accepts it', () => {
    for (const name of Object.values(QUEUES)) expect(name).toMatch(/^[a-z][a-z-]*$/);
    expect(new Set(Object.values(QUEUES)).size).toBe(Object.values(QUEUES).length);
  });

  it('retries webhook deliveries after 1, 2, 4, 8 and 16 retry bases, six attempts in all', () => {
    expect(webhookRetrySchedule()).toEqual([1_000, 2_000, 4_000, 8_000, 16_000]);
    expect(webhookRetrySchedule(50)).toEqual([50, 100, 200, 400, 800]);
    const options = webhookDeliveryJobOptions('evt_1', 'wh_1', 50);
    expect(options).toEqual({
      jobId: 'evt_1.wh_1',
      attempts: WEBHOOK_MAX_ATTEMPTS,
      backoff: { type: 'exponential', delayMs: 50 },
    });
    const delays = [1, 2, 3, 4, 5].map((retry) => backoffDelay(options.backoff, retry));
    expect(delays).toEqual(webhookRetrySchedule(50));
  });

  it('keys jobs so they stay valid BullMQ ids', () => {
    expect(webhookDeliveryJobId('evt_1', 'wh:2')).toBe('evt_1.wh_2');
    expect(eventJobOptions({ id: 'evt_9' })).toEqual({ ...EVENT_JOB_OPTIONS, jobId: 'evt_9' });
    expect(backoffDelay({ type: 'fixed', delayMs: 30 }, 4)).toBe(30);
    expect(backoffDelay(undefined, 2)).toBe(0);
  });

  it('retries an events fan-out for about ten minutes, exponential with a cap, so a store outage does not drop events', () => {
    expect(EVENT_JOB_OPTIONS).toEqual({ attempts: 10, backoff: { type: 'exponential', delayMs: 2_000, maxDelayMs: 180_000 } });
    const schedule = eventRetrySchedule();
    expect(schedule).toEqual([2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 128_000, 180_000, 180_000]);
    const total = schedule.reduce((sum, delay) => sum + delay, 0);
    expect(total).toBeGreaterThanOrEqual(10 * 60_000);
    expect(total).toBeLessThan(12 * 60_000);
  });

  it('caps an exponential backoff at maxDelayMs and refuses a cap that is not a duration', () => {
    const capped = { type: 'exponential' as const, delayMs: 100, maxDelayMs: 350 };
    expect([1, 2, 3, 4, 10].map((retry) => backoffDelay(capped, retry))).toEqual([100, 200, 350, 350, 350]);
    expect(backoffDelay({ type: 'fixed', delayMs: 500, maxDelayMs: 200 }, 3)).toBe(200);
    expect(() => assertValidJobOptions({ backoff: { type: 'exponential', delayMs: 1, maxDelayMs: -1 } })).toThrow(/maxDelayMs/);
  });
});
