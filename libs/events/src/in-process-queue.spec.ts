import { InProcessJobQueue } from './in-process-queue';
import { jobQueueContract } from './job-queue.contract';
import { captureLogger, deferred, sleep, within } from './spec-helpers';

jobQueueContract('in-process', () => {
  const { logger } = captureLogger();
  // Timers only, but a busy CI machine delays them (294 ms seen for a 200 ms backoff): below a doubled schedule still.
  return { create: (name) => new InProcessJobQueue(name, logger), slackMs: 150 };
});

describe('InProcessJobQueue', () => {
  it('forgets a finished jobId, so the same id can run again', async () => {
    const queue = new InProcessJobQueue<{ v: number }>('reuse', captureLogger().logger);
    const seen: number[] = [];
    let next = deferred();
    queue.process(async (job) => {
      seen.push(job.data.v);
      next.resolve();
    });
    await queue.add('x', { v: 1 }, { jobId: 'same-id' });
    await within(next.promise, 1_000, 'first run');
    next = deferred();
    await queue.add('x', { v: 2 }, { jobId: 'same-id' });
    await within(next.promise, 1_000, 'second run');
    expect(seen).toEqual([1, 2]);
    expect(queue.size).toBe(0);
    await queue.close();
  });

  it('drops jobs not yet run on close, logging how many', async () => {
    const { logger, lines } = captureLogger();
    const queue = new InProcessJobQueue<{ v: number }>('drop', logger);
    await queue.add('x', { v: 1 }, { delayMs: 10_000 });
    await queue.add('x', { v: 2 });
    expect(queue.size).toBe(2);
    await queue.close();
    expect(queue.size).toBe(0);
    expect(lines).toContainEqual(expect.objectContaining({ queue: 'drop', dropped: 2 }));
  });

  it('does not retry a failed job while closing', async () => {
    const queue = new InProcessJobQueue<{ v: number }>('no-retry', captureLogger().logger);
    const onFailed = jest.fn();
    queue.onFailed(onFailed);
    let calls = 0;
    const started = deferred();
    queue.process(async () => {
      calls += 1;
      started.resolve();
      await sleep(50);
      throw new Error('fails');
    });
    await queue.add('x', { v: 1 }, { attempts: 3 });
    await started.promise;
    await queue.close();
    await sleep(50);
    expect(calls).toBe(1);
    expect(onFailed).not.toHaveBeenCalled();
  });

  it('logs an onFailed hook that throws and keeps working', async () => {
    const { logger, lines } = captureLogger();
    const queue = new InProcessJobQueue<{ v: number }>('hook-throws', logger);
    const second = deferred();
    queue.onFailed(() => {
      throw new Error('hook broke');
    });
    queue.onFailed(() => second.resolve());
    queue.process(async () => {
      throw new Error('fails');
    });
    await queue.add('x', { v: 1 });
    await within(second.promise, 1_000, 'second hook');
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'onFailed handler threw', job_id: '1' }));
    await queue.close();
  });
});
