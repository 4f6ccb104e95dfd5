/**
 * The behaviour every JobQueue implementation must show. Run by in-process-queue.spec.ts and
 * bullmq-queue.spec.ts against their implementation (not a spec file itself).
 */
import { JobQueue, PermanentJobError, QueueJob } from './job-queue';
import { deferred, sleep, within } from './spec-helpers';

export interface ContractTarget {
  /** A fresh queue in a namespace no other test uses. */
  create<T>(name: string): JobQueue<T>;
  /** Extra slack allowed on top of each expected backoff delay (polling, Redis round trips). */
  slackMs: number;
}

export function jobQueueContract(label: string, makeTarget: () => ContractTarget): void {
  describe(`JobQueue contract (${label})`, () => {
    let target: ContractTarget;
    let opened: JobQueue<unknown>[] = [];
    const open = <T>(name: string): JobQueue<T> => {
      const queue = target.create<T>(name);
      opened.push(queue as JobQueue<unknown>);
      return queue;
    };

    beforeEach(() => {
      target = makeTarget();
      opened = [];
    });
    afterEach(async () => {
      await Promise.all(opened.map((queue) => queue.close()));
    });

    it('delivers the job with its name, JSON-copied data, id and attempt counters', async () => {
      const queue = open<{ n: number; when: Date | string; tags: string[] }>('deliver');
      const received = deferred<QueueJob<{ n: number; when: Date | string; tags: string[] }>>();
      queue.process(async (job) => received.resolve(job));
      const before = Date.now();
      const id = await queue.add('greet', { n: 1, when: new Date(0), tags: ['a'] });
      const job = await within(received.promise, 3_000, 'delivery');
      expect(job).toMatchObject({ id, name: 'greet', attempt: 1, maxAttempts: 1 });
      expect(job.data).toEqual({ n: 1, when: '1970-01-01T00:00:00.000Z', tags: ['a'] });
      expect(job.timestamp).toBeGreaterThanOrEqual(before - 1);
      expect(queue.kind).toMatch(/^(bullmq|in-process)$/);
    });

    it('runs jobs added before a worker existed, with the requested concurrency', async () => {
      const queue = open<{ i: number }>('concurrency');
      for (let i = 0; i < 6; i += 1) await queue.add('work', { i });
      const done: number[] = [];
      const all = deferred();
      let running = 0;
      let peak = 0;
      queue.process(
        async (job) => {
          running += 1;
          peak = Math.max(peak, running);
          await sleep(80);
          running -= 1;
          done.push(job.data.i);
          if (done.length === 6) all.resolve();
        },
        { concurrency: 3 },
      );
      await within(all.promise, 5_000, 'six jobs');
      expect(done.sort()).toEqual([0, 1, 2, 3, 4, 5]);
      expect(peak).toBe(3);
    });

    it('holds a delayed job back for its delay while later jobs run first', async () => {
      const queue = open<{ tag: string }>('delay');
      const order: string[] = [];
      const starts: Record<string, number> = {};
      const both = deferred();
      queue.process(async (job) => {
        order.push(job.data.tag);
        starts[job.data.tag] = Date.now();
        if (order.length === 2) both.resolve();
      });
      const t0 = Date.now();
      await queue.add('later', { tag: 'delayed' }, { delayMs: 250 });
      await queue.add('now', { tag: 'immediate' });
      await within(both.promise, 3_000, 'two jobs');
      expect(order).toEqual(['immediate', 'delayed']);
      expect(starts.delayed - t0).toBeGreaterThanOrEqual(245);
      expect(starts.delayed - t0).toBeLessThan(250 + target.slackMs + 200);
    });

    it('retries on the exponential schedule D, 2D, 4D, 8D, 16D and calls onFailed once after the 6th attempt', async () => {
      const queue = open<{ k: number }>('backoff');
      const starts: number[] = [];
      const attempts: number[] = [];
      const failures: [QueueJob<{ k: number }>, Error][] = [];
      const failed = deferred();
      queue.onFailed((job, error) => {
        failures.push([job, error]);
        failed.resolve();
      });
      queue.process(async (job) => {
        starts.push(Date.now());
        attempts.push(job.attempt);
        throw new Error(`boom ${job.attempt}`);
      });
      await queue.add('flaky', { k: 7 }, { attempts: 6, backoff: { type: 'exponential', delayMs: 50 } });
      await within(failed.promise, 6_000, 'onFailed');
      await sleep(150);
      expect(attempts).toEqual([1, 2, 3, 4, 5, 6]);
      const gaps = starts.slice(1).map((start, i) => start - starts[i]);
      [50, 100, 200, 400, 800].forEach((expected, i) => {
        expect(gaps[i]).toBeGreaterThanOrEqual(expected - 5);
        expect(gaps[i]).toBeLessThan(expected + target.slackMs);
      });
      expect(failures).toHaveLength(1);
      const [job, error] = failures[0];
      expect(job).toMatchObject({ name: 'flaky', data: { k: 7 }, attempt: 6, maxAttempts: 6 });
      expect(error.message).toBe('boom 6');
    });

    it('caps the exponential backoff at maxDelayMs: D, 2D, then the cap', async () => {
      const queue = open<{ k: number }>('capped');
      const starts: number[] = [];
      const failed = deferred();
      queue.onFailed(() => failed.resolve());
      queue.process(async (job) => {
        starts.push(Date.now());
        throw new Error(`boom ${job.attempt}`);
      });
      await queue.add('flaky', { k: 1 }, { attempts: 5, backoff: { type: 'exponential', delayMs: 60, maxDelayMs: 150 } });
      await within(failed.promise, 6_000, 'onFailed');
      const gaps = starts.slice(1).map((start, i) => start - starts[i]);
      expect(gaps).toHaveLength(4);
      // Uncapped, the last two waits would be 240 and 480 ms.
      [60, 120, 150, 150].forEach((expected, i) => {
        expect(gaps[i]).toBeGreaterThanOrEqual(expected - 5);
        expect(gaps[i]).toBeLessThan(expected + target.slackMs);
      });
    });

    it('stops retrying once a job succeeds, without calling onFailed', async () => {
      const queue = open<{ k: number }>('recover');
      const attempts: number[] = [];
      const onFailed = jest.fn();
      const succeeded = deferred();
      queue.onFailed(onFailed);
      queue.process(async (job) => {
        attempts.push(job.attempt);
        if (job.attempt < 3) throw new Error('not yet');
        succeeded.resolve();
      });
      await queue.add('eventually', { k: 1 }, { attempts: 5, backoff: { type: 'fixed', delayMs: 20 } });
      await within(succeeded.promise, 3_000, 'third attempt');
      await sleep(150);
      expect(attempts).toEqual([1, 2, 3]);
      expect(onFailed).not.toHaveBeenCalled();
    });

    it('fails at once on a PermanentJobError, skipping the remaining attempts', async () => {
      const queue = open<{ k: number }>('permanent');
      let calls = 0;
      const failed = deferred<[QueueJob<{ k: number }>, Error]>();
      queue.onFailed((job, error) => failed.resolve([job, error]));
      queue.process(async () => {
        calls += 1;
        throw new PermanentJobError('gone for good');
      });
      await queue.add('doomed', { k: 2 }, { attempts: 5, backoff: { type: 'fixed', delayMs: 10 } });
      const [job, error] = await within(failed.promise, 3_000, 'onFailed');
      await sleep(100);
      expect(calls).toBe(1);
      expect(job.attempt).toBe(1);
      expect(error.message).toBe('gone for good');
    });

    it('deduplicates on jobId while the job is pending', async () => {
      const queue = open<{ v: number }>('dedup');
      const first = await queue.add('x', { v: 1 }, { jobId: 'dup-1', delayMs: 100 });
      const second = await queue.add('x', { v: 2 }, { jobId: 'dup-1' });
      await queue.add('x', { v: 3 }, { jobId: 'other-1' });
      expect(first).toBe('dup-1');
      expect(second).toBe('dup-1');
      const seen: number[] = [];
      const two = deferred();
      queue.process(async (job) => {
        seen.push(job.data.v);
        if (seen.length === 2) two.resolve();
      });
      await within(two.promise, 3_000, 'two distinct jobs');
      await sleep(200);
      expect(seen.sort()).toEqual([1, 3]);
    });

    it('close() waits for in-flight handlers, then refuses new jobs', async () => {
      const queue = open<{ k: number }>('close');
      const started = deferred();
      let finished = false;
      queue.process(async () => {
        started.resolve();
        await sleep(250);
        finished = true;
      });
      await queue.add('slow', { k: 1 });
      await within(started.promise, 3_000, 'start');
      await queue.close();
      expect(finished).toBe(true);
      await expect(queue.add('late', { k: 2 })).rejects.toThrow(/closed/);
    });

    it('close() waits for an onFailed hook that is still running', async () => {
      const queue = open<{ k: number }>('close-hook');
      const hookStarted = deferred();
      let hookFinished = false;
      queue.onFailed(async () => {
        hookStarted.resolve();
        await sleep(200);
        hookFinished = true;
      });
      queue.process(async () => {
        throw new Error('fails');
      });
      await queue.add('bad', { k: 1 });
      await within(hookStarted.promise, 3_000, 'onFailed');
      await queue.close();
      expect(hookFinished).toBe(true);
    });

    it('rejects options that are not portable between implementations', async () => {
      const queue = open<{ k: number }>('invalid');
      await expect(queue.add('x', { k: 1 }, { jobId: 'a:b' })).rejects.toThrow(/':'/);
      await expect(queue.add('x', { k: 1 }, { jobId: '42' })).rejects.toThrow(/integer/);
      await expect(queue.add('x', { k: 1 }, { attempts: 0 })).rejects.toThrow(/attempts/);
      await expect(queue.add('x', { k: 1 }, { delayMs: -1 })).rejects.toThrow(/delayMs/);
      expect(() => queue.process(async () => undefined, { concurrency: 0 })).toThrow(/concurrency/);
    });
  });
}
