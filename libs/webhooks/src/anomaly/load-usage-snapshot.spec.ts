import { asOrgId, createRepositories, storeTargets, StoreUnderTest } from '@svc/domain';
import { anomalyScenarios as scenarios } from '@svc/testing';
import { loadUsageSnapshot, snapshotByAggregation, snapshotFromRecords } from './load-usage-snapshot';
import { AgentUsage, DAY_MS, HOUR_MS, UsageSnapshot } from './usage-snapshot';

const [embedded] = storeTargets(undefined);
const byAgent = (groups: AgentUsage[]) =>
  [...groups]
    .sort((a, b) => String(a.agent).localeCompare(String(b.agent)))
    .map((group) => ({ ...group, cost: Math.round(group.cost * 1e9) / 1e9 }));
const normalized = (snapshot: UsageSnapshot) => ({
  ...snapshot,
  current: byAgent(snapshot.current),
  previousDay: byAgent(snapshot.previousDay),
  previousWeekCost: Math.round(snapshot.previousWeekCost * 1e9) / 1e9,
});

describe('loadUsageSnapshot', () => {
  let ctx: StoreUnderTest;
  beforeEach(async () => {
    ctx = await embedded.open();
    await ctx.store.ready();
  });
  afterEach(() => ctx.cleanup());

  it.each([
    ['hourly spike', scenarios.hourlySpikeUsage],
    ['runaway agent', scenarios.runawayAgentUsage],
    ['model drift', scenarios.modelDriftUsage],
    ['volume surge', scenarios.volumeSurgeUsage],
    ['steady', scenarios.steadyUsage],
    ['short history', scenarios.shortHistoryUsage],
    ['heavier prompts', scenarios.heavierPromptsUsage],
  ])('reads the same snapshot through the aggregation (MongoDB) and the record fold (embedded store): %s', async (_name, build) => {
    const repos = createRepositories(ctx.store);
    const now = Date.now();
    const org = await repos.organizations.create({ name: 'snapshot', plan: 'free' });
    const usage = build(org._id, now);
    // Blocked requests and edges of the windows, which both paths must count alike.
    usage.push(scenarios.usageRecord(org._id, now - HOUR_MS, { cost: 0, blocked_by: 'pii_detected', agent: 'edge' }));
    usage.push(scenarios.usageRecord(org._id, now - DAY_MS, { cost: 0.5, model: 'claude-sonnet-4' }));
    usage.push(scenarios.usageRecord('org_someone_else', now - 60_000, { cost: 99, agent: 'edge' }));
    await repos.usage.recordBatch(usage);
    const at = new Date(now);
    const orgId = asOrgId(org._id);
    const [aggregated, folded] = await Promise.all([snapshotByAggregation(repos, orgId, at), snapshotFromRecords(repos, orgId, at)]);
    expect(normalized(folded)).toEqual(normalized(aggregated));
    expect(normalized(await loadUsageSnapshot(repos, orgId, at))).toEqual(normalized(folded));
    expect(folded.current.every((group) => group.cost < 99)).toBe(true);
  });

  it('keeps the current hour and the first usage when the embedded read hits its record limit', async () => {
    const repos = createRepositories(ctx.store);
    const now = Date.now();
    const org = await repos.organizations.create({ name: 'busy', plan: 'growth' });
    const orgId = asOrgId(org._id);
    // 60 old records (5 to 7 days ago), then a runaway hour: more than the 50 the read may take.
    const old = Array.from({ length: 60 }, (_, i) => scenarios.usageRecord(org._id, now - 5 * DAY_MS - i * HOUR_MS, { cost: 0.01, agent: 'crawler' }));
    await repos.usage.recordBatch([...old, ...scenarios.runawayAgentUsage(org._id, now)]);
    const snapshot = await snapshotFromRecords(repos, orgId, new Date(now), 50);
    expect(snapshot.current).toEqual([expect.objectContaining({ agent: 'crawler', requests: 3, cost: 6 })]);
    expect(snapshot.firstUsageAt).toEqual(old[59].created_at);
  });

  it('sees nothing for an organization without usage', async () => {
    const repos = createRepositories(ctx.store);
    const now = new Date();
    const snapshot = await snapshotByAggregation(repos, asOrgId('org_none'), now);
    expect(snapshot).toEqual(await snapshotFromRecords(repos, asOrgId('org_none'), now));
    expect(snapshot).toMatchObject({ firstUsageAt: null, current: [], previousDay: [], previousWeekCost: 0, sameHourRequests: [], dailyBudget: null });
  });
});
