import { Writable } from 'node:stream';
import pino from 'pino';
import { asOrgId, createRepositories, Repositories, storeTargets, StoreUnderTest, UsageRecordEntity } from '@svc/domain';
import { anomalyScenarios } from '@svc/testing';
import { GatewayMetrics } from '../metrics/gateway-metrics';
import { UsageRecorder } from './usage-recorder';

const { usageRecord } = anomalyScenarios;

interface LogLine {
  level: number;
  msg: string;
  usage_record?: { _id: string };
}

describe.each(storeTargets(process.env.MONGODB_URI))('UsageRecorder ($name)', (target) => {
  let ctx: StoreUnderTest;
  let repos: Repositories;
  let metrics: GatewayMetrics;
  let recorder: UsageRecorder;
  let logged: LogLine[];
  let poison: UsageRecordEntity | null;
  const orgId = asOrgId('org_recorder');

  beforeEach(async () => {
    ctx = await target.open();
    await ctx.store.ready();
    repos = createRepositories(ctx.store);
    logged = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logged.push(JSON.parse(chunk.toString()) as LogLine);
        done();
      },
    });
    metrics = new GatewayMetrics();
    poison = null;
    // The recorder writes through the repositories of the store open now (a test reopens it); a
    // batch holding `poison` fails with an error of no known kind (as a driver bug might).
    const current = {
      get usage() {
        return {
          recordBatch: (records: UsageRecordEntity[]) =>
            records.some((record) => record === poison) ? Promise.reject(new TypeError('unexpected driver failure')) : repos.usage.recordBatch(records),
        };
      },
    } as unknown as Repositories;
    recorder = new UsageRecorder(current, pino(sink), metrics);
  });
  afterEach(async () => {
    await recorder.onModuleDestroy();
    await ctx.cleanup();
  });

  const stored = async () => (await repos.usage.replay(orgId, { from: new Date(0) })).map((r) => r._id).sort();
  const dropped = async (reason: string) => {
    const line = (await metrics.exposition()).split('\n').find((l) => l.startsWith(`svc_gateway_usage_records_dropped_total{reason="${reason}"}`));
    return Number(line?.split(' ').at(-1));
  };
  const errors = () => logged.filter((line) => line.level >= 50);

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
    expect(errors()).toEqual([]);
    expect(await dropped('refused')).toBe(0);
  });

  // Unloaded: the embedded store's usage collection before anything reads it (the gateway's case).
  it.each(['unloaded', 'loaded'])('stores the rest of a batch the store refuses a record of, dead-letters that one and keeps recording (%s)', async (state) => {
    if (state === 'loaded') expect(await stored()).toEqual([]);
    const now = ctx.clock.now();
    const good = Array.from({ length: 9 }, (_, i) => usageRecord(orgId, now - 20 + i));
    // A record no store takes (both adapters refuse a document without an _id).
    const bad: UsageRecordEntity = { ...usageRecord(orgId, now - 10), _id: '' };
    for (const record of [...good.slice(0, 4), bad, ...good.slice(4, 8)]) recorder.record(record);
    await recorder.flush();
    recorder.record(good[8]);
    await recorder.flush();
    expect(await stored()).toEqual(good.map((r) => r._id).sort());
    expect(await dropped('refused')).toBe(1);
    const deadLetters = errors().filter((line) => line.msg === 'usage record dropped: the store refused it');
    expect(deadLetters.map((line) => line.usage_record)).toEqual([expect.objectContaining({ _id: '', org_id: orgId, cost: bad.cost })]);
    // Not retried: later flushes neither log it again nor count it twice.
    await recorder.flush();
    expect(await dropped('refused')).toBe(1);
  });

  it('tries a batch failing for no known reason 5 times, then splits it: the others are stored, the failing record dropped', async () => {
    const now = ctx.clock.now();
    const good = [usageRecord(orgId, now - 3), usageRecord(orgId, now - 2), usageRecord(orgId, now - 1)];
    poison = usageRecord(orgId, now);
    for (const record of [good[0], poison, good[1], good[2]]) recorder.record(record);
    for (let attempt = 1; attempt < 5; attempt++) await recorder.flush();
    expect(await stored()).toEqual([]);
    expect(await dropped('refused')).toBe(0);
    await recorder.flush();
    expect(await stored()).toEqual(good.map((r) => r._id).sort());
    expect(await dropped('refused')).toBe(1);
  });

  it('keeps every record while the store is unavailable, however many attempts fail, and writes them once it is back', async () => {
    const now = ctx.clock.now();
    const records = [usageRecord(orgId, now - 2), usageRecord(orgId, now - 1)];
    await ctx.store.close();
    // One record alone: a batch of one is never split, so nothing but the kind of failure keeps it.
    recorder.record(records[0]);
    for (let attempt = 0; attempt < 8; attempt++) await recorder.flush();
    expect(errors().filter((line) => line.msg === 'usage records could not be written; retrying')).toHaveLength(8);
    expect(await dropped('refused')).toBe(0);
    repos = createRepositories(await ctx.reopen());
    recorder.record(records[1]);
    await recorder.flush();
    expect(await stored()).toEqual(records.map((r) => r._id).sort());
  });
});

describe('UsageRecorder on the embedded store: a value its files cannot hold', () => {
  const [embedded] = storeTargets();
  let ctx: StoreUnderTest;
  let metrics: GatewayMetrics;
  let recorder: UsageRecorder;
  const orgId = asOrgId('org_recorder');

  beforeEach(async () => {
    ctx = await embedded.open();
    metrics = new GatewayMetrics();
    recorder = new UsageRecorder(createRepositories(ctx.store), pino({ level: 'silent' }), metrics);
  });
  afterEach(async () => {
    await recorder.onModuleDestroy();
    await ctx.cleanup();
  });

  it.each(['unloaded', 'loaded'])('drops a record with an invalid date and stores the others, on disk (%s)', async (state) => {
    const repos = createRepositories(ctx.store);
    if (state === 'loaded') await repos.usage.replay(orgId, { from: new Date(0) });
    const now = ctx.clock.now();
    const good = [usageRecord(orgId, now - 2), usageRecord(orgId, now - 1)];
    recorder.record(good[0]);
    recorder.record({ ...usageRecord(orgId, now), created_at: new Date(Number.NaN) });
    recorder.record(good[1]);
    await recorder.flush();
    expect((await metrics.exposition()).split('\n')).toContain('svc_gateway_usage_records_dropped_total{reason="refused"} 1');
    // The records reach the files: nothing in memory stops the store's writes.
    const reopened = createRepositories(await ctx.reopen());
    expect((await reopened.usage.replay(orgId, { from: new Date(0) })).map((r) => r._id).sort()).toEqual(good.map((r) => r._id).sort());
  });
});
