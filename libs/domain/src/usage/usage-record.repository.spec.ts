import { newId } from '../shared/ids';
import { storeTargets } from '../testing/stores';
import { expectTenantIsolation, ORG_A, ORG_B, useRepository } from '../testing/jest-helpers';
import { IS_PROVIDER_CALL, PROVIDER_CALL_SUMS } from './usage-populations';
import { USAGE_RETENTION_SECONDS, UsageRecordEntity } from './usage-record.entity';
import { UsageRecordRepository } from './usage-record.repository';

// Records must be younger than the 90-day retention: the test days are a few days ago (UTC).
const DAY_MS = 24 * 3600_000;
const DAY1 = Math.floor(Date.now() / DAY_MS) * DAY_MS - 5 * DAY_MS;
/** A moment `day` days after DAY1 (0 or 1) at `hh:mm` UTC. */
const at = (day: number, hh: number, mm = 0) => new Date(DAY1 + day * DAY_MS + (hh * 60 + mm) * 60_000);
const iso = (d: Date) => d.toISOString();
const dayKey = (day: number) => iso(at(day, 0)).slice(0, 10);
const hourKey = (day: number, hh: number) => iso(at(day, hh)).slice(0, 13);

function usage(orgId: string, created: Date, extra: Partial<UsageRecordEntity> = {}): UsageRecordEntity {
  return {
    _id: newId('usage'),
    org_id: orgId,
    key_id: 'key_1',
    team_id: null,
    provider: 'openai',
    model: 'gpt-4o',
    endpoint: '/v1/chat/completions',
    stream: false,
    status_code: 200,
    blocked_by: null,
    input_tokens: 100,
    output_tokens: 50,
    estimated_cost: 0.02,
    cost: 0.01,
    latency_ms: 200,
    upstream_latency_ms: 180,
    governance_ms: 2,
    agent: 'bot',
    runner_id: null,
    session_id: null,
    created_at: created,
    replay: {
      estimated_input_tokens: 100,
      max_output_tokens: 4096,
      body_bytes: 512,
      pii_findings: { email: 1 },
      safety_findings: {},
      security_findings: {},
      skills: [],
      reasoning_tokens: null,
    },
    ...extra,
  };
}

describe.each(storeTargets(process.env.MONGODB_URI))('UsageRecordRepository ($name)', (target) => {
  const t = useRepository(target, (store) => new UsageRecordRepository(store));

  beforeEach(async () => {
    await t.repo.recordBatch([
      usage(ORG_A, at(0, 10)),
      usage(ORG_A, at(0, 10, 30), { provider: 'anthropic', model: 'claude-3', cost: 0.05, agent: 'crawler', latency_ms: 400 }),
      usage(ORG_A, at(0, 11), { blocked_by: 'daily_budget', status_code: 403, cost: 0, agent: null, upstream_latency_ms: null }),
      usage(ORG_A, at(1, 9), { cost: 0.1, key_id: 'key_2' }),
      usage(ORG_B, at(0, 10), { cost: 9 }),
    ]);
  });

  const january = { from: at(0, 0), to: at(3, 0) };

  it('keeps the request id as the public id and the replay data', async () => {
    const [first] = (await t.repo.listRange(ORG_A, january, { limit: 1 })).items;
    expect(first._id).toMatch(/^gw_/);
    expect(await t.repo.findById(ORG_A, first._id)).toEqual(first);
    expect(first.replay).toMatchObject({ max_output_tokens: 4096, pii_findings: { email: 1 } });
  });

  it('lists a range newest first with total, and replays it oldest first', async () => {
    const page = await t.repo.listRange(ORG_A, { from: at(0, 10, 15) }, { limit: 2 });
    expect(page.total).toBe(3);
    expect(page.items.map((u) => iso(u.created_at))).toEqual([iso(at(1, 9)), iso(at(0, 11))]);
    const replay = await t.repo.replay(ORG_A, { from: at(0, 0), to: at(1, 0) });
    expect(replay.map((u) => iso(u.created_at))).toEqual([iso(at(0, 10)), iso(at(0, 10, 30)), iso(at(0, 11))]);
    expect(await t.repo.countRange(ORG_A, january)).toBe(4);
  });

  it('totals a range', async () => {
    const totals = await t.repo.totals(ORG_A, january);
    expect(totals).toMatchObject({ requests: 4, blocked: 1, input_tokens: 400, output_tokens: 200 });
    expect(totals.cost).toBeCloseTo(0.16);
    expect(totals.avg_latency_ms).toBeCloseTo(250);
    expect(await t.repo.totals(ORG_A, { from: at(2, 0) })).toMatchObject({ requests: 0, cost: 0 });
  });

  it('totals by UTC day and hour', async () => {
    const days = await t.repo.totalsByTime(ORG_A, january, 'day');
    expect(days.map((d) => [d.bucket, d.requests])).toEqual([
      [dayKey(0), 3],
      [dayKey(1), 1],
    ]);
    expect(days[1].cost).toBeCloseTo(0.1);
    const hours = await t.repo.totalsByTime(ORG_A, { from: january.from, to: at(1, 0) }, 'hour');
    expect(hours.map((h) => [h.bucket, h.requests])).toEqual([
      [hourKey(0, 10), 2],
      [hourKey(0, 11), 1],
    ]);
  });

  it('totals by provider, agent and key, costliest first', async () => {
    const providers = await t.repo.totalsByField(ORG_A, january, 'provider');
    expect(providers.map((p) => [p.provider, p.requests])).toEqual([
      ['openai', 3],
      ['anthropic', 1],
    ]);
    const agents = await t.repo.totalsByField(ORG_A, january, 'agent');
    expect(agents.map((a) => a.agent)).toEqual(['bot', 'crawler', null]);
    const keys = await t.repo.totalsByField(ORG_A, january, 'key_id');
    expect(keys.map((k) => k.key_id)).toEqual(['key_2', 'key_1']);
  });

  it('gives latency samples of the provider calls', async () => {
    const samples = await t.repo.latencySamples(ORG_A, january);
    expect(samples).toHaveLength(3);
    expect(samples).toContainEqual({ provider: 'anthropic', model: 'claude-3', latency_ms: 400 });
  });

  it('tells the populations apart in the store: every request, the provider calls, the governance decisions', async () => {
    const day = { from: at(2, 0), to: at(3, 0) };
    const served = { usage_source: 'provider' as const };
    const answeredAtOnce = { cost: 0, input_tokens: 0, output_tokens: 0, upstream_latency_ms: null, governance_ms: 0, latency_ms: 1 };
    const records = {
      call: usage(ORG_A, at(2, 1), { ...served, latency_ms: 300 }),
      providerError: usage(ORG_A, at(2, 2), { status_code: 429, cost: 0, usage_source: 'none', latency_ms: 100, upstream_latency_ms: 90 }),
      replay: usage(ORG_A, at(2, 3), { ...answeredAtOnce, usage_source: 'replay' }),
      // Written before usage_source existed: a replay then looked like this.
      legacyReplay: usage(ORG_A, at(2, 4), { ...answeredAtOnce }),
      routeRefusal: usage(ORG_A, at(2, 5), { ...answeredAtOnce, status_code: 404, provider: 'unknown', model: 'unknown', usage_source: 'none' }),
      block: usage(ORG_A, at(2, 6), { cost: 0, blocked_by: 'cost_limit', status_code: 403, upstream_latency_ms: null, usage_source: 'none' }),
      timeout: usage(ORG_A, at(2, 7), { cost: 0, status_code: 504, upstream_latency_ms: null, latency_ms: 30_000, usage_source: 'none' }),
    };
    await t.repo.recordBatch(Object.values(records));
    const ids = (rows: { _id: string }[]) => rows.map((r) => r._id).sort();
    const { call, providerError, block, timeout } = records;

    expect(await t.repo.countRange(ORG_A, day)).toBe(7);
    expect(await t.repo.countRange(ORG_A, day, 'provider_calls')).toBe(2);
    expect(await t.repo.countRange(ORG_A, day, 'governed')).toBe(4);
    expect(ids(await t.repo.listBefore(ORG_A, day, null, 10, 'governed'))).toEqual(ids([call, providerError, block, timeout]));
    // Keyset pages keep the population.
    expect(ids(await t.repo.listBefore(ORG_A, day, { created_at: block.created_at, _id: block._id }, 10, 'governed'))).toEqual(ids([call, providerError]));
    expect((await t.repo.latencySamples(ORG_A, day)).map((s) => s.latency_ms).sort()).toEqual([100, 300]);

    // The aggregation expression agrees with the query condition, record by record.
    const flags = await t.repo.aggregateUsage<{ _id: string; call: boolean }>(ORG_A, [
      { $match: { created_at: { $gte: day.from, $lt: day.to } } },
      { $project: { call: IS_PROVIDER_CALL } },
    ]);
    expect(ids(flags.filter((f) => f.call))).toEqual(ids([call, providerError]));
    const [sums] = await t.repo.aggregateUsage<{ calls: number; call_latency_ms: number; requests: number }>(ORG_A, [
      { $match: { created_at: { $gte: day.from, $lt: day.to } } },
      { $group: { _id: null, requests: { $sum: 1 }, ...PROVIDER_CALL_SUMS } },
    ]);
    expect(sums).toMatchObject({ requests: 7, calls: 2, call_latency_ms: 400 });
  });

  it('runs a custom aggregation over the organization only, and refuses cross-collection stages', async () => {
    const [row] = await t.repo.aggregateUsage<{ total: number }>(ORG_A, [{ $group: { _id: null, total: { $sum: '$cost' } } }]);
    expect(row.total).toBeCloseTo(0.16);
    expect(() => t.repo.aggregateUsage(ORG_A, [{ $unionWith: 'usage_records' }])).toThrow(/not allowed/);
  });

  it('lists organizations with usage since a moment, across organizations', async () => {
    expect(await t.repo.listOrgIdsWithUsageSince(at(0, 0))).toEqual([ORG_A, ORG_B]);
    expect(await t.repo.listOrgIdsWithUsageSince(at(0, 12))).toEqual([ORG_A]);
  });

  it('records a batch retried after part of it was written once per record, without an error', async () => {
    const day = { from: at(2, 0), to: at(3, 0) };
    const batch = [usage(ORG_A, at(2, 1)), usage(ORG_A, at(2, 2)), usage(ORG_A, at(2, 3))];
    await t.repo.recordBatch(batch.slice(0, 2));
    expect(await t.repo.countRange(ORG_A, day)).toBe(2); // read: the collection is loaded from here on
    await t.repo.recordBatch(batch);
    await t.repo.recordBatch(batch);
    expect((await t.repo.replay(ORG_A, day)).map((r) => r._id)).toEqual(batch.map((r) => r._id));
  });

  it('drops records after 90 days', async () => {
    const recent = usage(ORG_A, new Date(t.ctx.clock.now()));
    await t.repo.recordBatch([recent]);
    expect(await t.repo.findById(ORG_A, recent._id)).not.toBeNull();
    t.ctx.clock.advance(USAGE_RETENTION_SECONDS * 1000 + 1000);
    expect(await t.repo.findById(ORG_A, recent._id)).toBeNull();
  });

  it('isolates tenants', async () => {
    const [mine] = await t.repo.replay(ORG_A, january, 1);
    const { items } = await t.repo.listRange(ORG_B, january);
    expect(items).toHaveLength(1);
    expect(await t.repo.findById(ORG_B, mine._id)).toBeNull();
    expect(await t.repo.totals(ORG_B, january)).toMatchObject({ requests: 1, cost: 9 });
    expect(await t.repo.updateById(ORG_B, mine._id, { cost: 100 })).toBeNull();
    expect(await t.repo.deleteById(ORG_B, mine._id)).toBe(false);
    expect(await t.repo.findById(ORG_A, mine._id)).toEqual(mine);
    // The generic check needs org B empty: remove its own record (allowed), then check a fresh A record.
    await t.repo.deleteById(ORG_B, items[0]._id);
    const fresh = usage(ORG_A, new Date(t.ctx.clock.now()));
    await t.repo.recordBatch([fresh]);
    const onlyB = await t.repo.listRange(ORG_B, { from: new Date(0) });
    expect(onlyB.total).toBe(0);
    await expectTenantIsolation(t.repo, fresh, { cost: 1 });
  });
});
