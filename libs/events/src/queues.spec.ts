import { backoffDelay } from './job-queue';
import {
  eventJobOptions,
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
    expect(eventJobOptions({ id: 'evt_9' })).toMatchObject({ jobId: 'evt_9', attempts: 5 });
    expect(backoffDelay({ type: 'fixed', delayMs: 30 }, 4)).toBe(30);
    expect(backoffDelay(undefined, 2)).toBe(0);
  });
});
