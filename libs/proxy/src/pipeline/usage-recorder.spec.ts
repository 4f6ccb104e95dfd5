import { Writable } from 'node:stream';
import pino from 'pino';
import { asOrgId, createRepositories, Repositories, storeTargets, StoreUnderTest } from '@svc/domain';
import { anomalyScenarios } from '@svc/testing';
import { UsageRecorder } from './usage-recorder';

const { usageRecord } = anomalyScenarios;

describe.each(storeTargets(process.env.MONGODB_URI))('UsageRecorder ($name)', (target) => {
  let ctx: StoreUnderTest;
  let repos: Repositories;
  let recorder: UsageRecorder;
  let logged: { level: number; msg: string }[];
  const orgId = asOrgId('org_recorder');

  beforeEach(async () => {
    ctx = await target.open();
    await ctx.store.ready();
    repos = createRepositories(ctx.store);
    logged = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logged.push(JSON.parse(chunk.toString()) as { level: number; msg: string });
        done();
      },
    });
    recorder = new UsageRecorder(repos, pino(sink));
  });
  afterEach(async () => {
    await recorder.onModuleDestroy();
    await ctx.cleanup();
  });

  const stored = async () => (await repos.usage.replay(orgId, { from: new Date(0) })).map((r) => r._id).sort();

  it('writes a batch retried after part of it was stored, each record once, and keeps recording', async () => {
    const now = ctx.clock.now();
    const [first, second, third] = [usageRecord(orgId, now - 3), usageRecord(orgId, now - 2), usageRecord(orgId, now - 1)];
    // A previous attempt stored `first` before it failed; the batch came back to the buffer whole.
    await repos.usage.recordBatch([first]);
    expect(await stored()).toEqual([first._id]);
    recorder.record(first);
    recorder.record(second);
    await recorder.flush();
    recorder.record(third);
    await recorder.flush();
    expect(await stored()).toEqual([first._id, second._id, third._id].sort());
    expect(logged.filter((line) => line.level >= 50)).toEqual([]);
  });
});
