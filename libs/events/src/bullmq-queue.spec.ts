import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { createRedis, Redis } from '@svc/platform';
import { BullMqJobQueue, JobRetention } from './bullmq-queue';
import { jobQueueContract } from './job-queue.contract';
import { captureLogger, deferred, deleteKeys, sleep, uniquePrefix, within } from './spec-helpers';

const REDIS_URL = process.env.TEST_REDIS_URL as string;
const { logger } = captureLogger();
let connection: Redis;
const prefixes: string[] = [];

function prefix(label: string): string {
  const value = uniquePrefix(label);
  prefixes.push(value);
  return value;
}

beforeAll(() => {
  if (!REDIS_URL) throw new Error('TEST_REDIS_URL is not set (tools/testing/global-setup.js starts a redis-server)');
  connection = createRedis(REDIS_URL, 'queue', 'events-spec');
});

afterAll(async () => {
  for (const value of prefixes) await deleteKeys(connection, value);
  await connection.quit();
});

jobQueueContract('bullmq', () => {
  const namespace = prefix('contract');
  return {
    create: (name) => new BullMqJobQueue(name, { connection, prefix: namespace, logger }),
    slackMs: 300,
  };
});

describe('BullMqJobQueue', () => {
  it('loads BullMQ on the first job added, not when the bus is built (the gateway proxy publishes only now and then)', () => {
    const probe = [
      "const loaded = () => Object.keys(require.cache).some((path) => path.includes('/node_modules/bullmq/'));",
      "const { createEventBus } = require('./libs/events/src/index.ts');",
      "const logger = require('pino')({ level: 'silent' });",
      `const bus = createEventBus({ REDIS_URL: ${JSON.stringify(REDIS_URL)} }, logger, { prefix: ${JSON.stringify(prefix('lazy'))} });`,
      'const before = loaded();',
      "bus.queue('lazy').add('job', { n: 1 }).then(() => { const after = loaded(); return bus.close().then(() => console.log(JSON.stringify({ before, after }))); });",
    ].join('\n');
    const run = spawnSync(process.execPath, ['-r', '@swc-node/register', '-e', probe], {
      cwd: join(__dirname, '..', '..', '..'),
      env: { ...process.env, SWC_NODE_PROJECT: 'tsconfig.base.json' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    if (run.status !== 0) throw new Error(`the probe failed (${run.status}): ${run.stderr}`);
    expect(JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}')).toEqual({ before: false, after: true });
  }, 60_000);


  it('hands the job of a worker that died mid-job to a new worker, with the same data', async () => {
    const namespace = prefix('stalled');
    // The first worker runs on its own connection, like another process would.
    const ownConnection = createRedis(REDIS_URL, 'queue', 'events-spec-dying');
    const dying = new BullMqJobQueue<{ order: string }>('stall', { connection: ownConnection, prefix: namespace, logger });
    const survivor = new BullMqJobQueue<{ order: string }>('stall', { connection, prefix: namespace, logger });
    const hang = deferred();
    const picked = deferred<{ order: string; attempt: number; id: string }>();
    const firstStarted = deferred<string>();
    try {
      dying.process(
        async (job) => {
          firstStarted.resolve(job.id);
          await hang.promise;
        },
        { lockDurationMs: 600, stalledIntervalMs: 300 },
      );
      const id = await dying.add('stuck', { order: 'ord_1' }, { jobId: 'stall-job-1' });
      expect(await within(firstStarted.promise, 3_000, 'first worker')).toBe(id);
      await dying.close({ force: true }); // stops renewing the lock, as a killed process would
      survivor.process(
        async (job) => picked.resolve({ order: job.data.order, attempt: job.attempt, id: job.id }),
        { lockDurationMs: 600, stalledIntervalMs: 300 },
      );
      const taken = await within(picked.promise, 5_000, 'takeover by the new worker');
      expect(taken).toEqual({ order: 'ord_1', attempt: 1, id: 'stall-job-1' });
    } finally {
      hang.resolve();
      await survivor.close();
      await dying.close();
      ownConnection.disconnect();
    }
  });

  it('keeps finished jobs within the retention bounds', async () => {
    const namespace = prefix('retention');
    const retention: JobRetention = {
      completed: { ageSeconds: 3_600, count: 2 },
      failed: { ageSeconds: 3_600, count: 3 },
    };
    const queue = new BullMqJobQueue<{ i: number; fail: boolean }>('keep', { connection, prefix: namespace, logger, retention });
    try {
      const finished = deferred();
      let count = 0;
      queue.onFailed(() => undefined);
      queue.process(
        async (job) => {
          count += 1;
          if (count === 10) setImmediate(() => finished.resolve());
          if (job.data.fail) throw new Error('planned');
        },
        { concurrency: 1 },
      );
      for (let i = 0; i < 10; i += 1) await queue.add('j', { i, fail: i % 2 === 0 });
      await within(finished.promise, 5_000, 'ten jobs');
      await sleep(100);
      expect(await connection.zcard(`${namespace}:keep:completed`)).toBe(2);
      expect(await connection.zcard(`${namespace}:keep:failed`)).toBe(3);
    } finally {
      await queue.close();
    }
  });

  it('ignores a jobId it still retains after completion (no second delivery of one event)', async () => {
    const namespace = prefix('retained');
    const queue = new BullMqJobQueue<{ v: number }>('once', { connection, prefix: namespace, logger });
    try {
      const seen: number[] = [];
      const first = deferred();
      queue.process(async (job) => {
        seen.push(job.data.v);
        first.resolve();
      });
      await queue.add('x', { v: 1 }, { jobId: 'evt_same' });
      await within(first.promise, 3_000, 'first run');
      await sleep(50);
      expect(await queue.add('x', { v: 2 }, { jobId: 'evt_same' })).toBe('evt_same');
      await sleep(200);
      expect(seen).toEqual([1]);
    } finally {
      await queue.close();
    }
  });

  it('leaves the shared connection open when it closes', async () => {
    const queue = new BullMqJobQueue<{ v: number }>('shared', { connection, prefix: prefix('shared'), logger });
    queue.process(async () => undefined);
    await queue.add('x', { v: 1 });
    await queue.close();
    expect(connection.status).toBe('ready');
    expect(await connection.ping()).toBe('PONG');
  });
});
