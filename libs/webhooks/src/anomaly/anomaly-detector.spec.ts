import pino from 'pino';
import { asOrgId, createRepositories, PlanTier, Repositories, storeTargets, StoreUnderTest, UsageRecordEntity } from '@svc/domain';
import { EventPublisher, GatewayEvent, isGatewayEvent, RecordingPublisher } from '@svc/events';
import { MemoryOnceGate } from '../infra/once-gate';
import { AnomalyDetector } from './anomaly-detector';
import { anomalyScenarios } from '@svc/testing';
import { HOUR_MS } from './usage-snapshot';

const [embedded] = storeTargets(undefined);
const { heavierPromptsUsage, hourlySpikeUsage, modelDriftUsage, runawayAgentUsage, shortHistoryUsage, steadyUsage, volumeSurgeUsage } = anomalyScenarios;

describe('AnomalyDetector', () => {
  let ctx: StoreUnderTest;
  let repos: Repositories;
  let publisher: RecordingPublisher;
  let gate: MemoryOnceGate;
  let detector: AnomalyDetector;
  const now = new Date();
  /** The gate's clock: windows expire as it moves. */
  let clock = now.getTime();

  const seed = async (name: string, plan: PlanTier, usage: (orgId: string, now: number) => UsageRecordEntity[]) => {
    const org = await repos.organizations.create({ name, plan });
    await repos.usage.recordBatch(usage(org._id, now.getTime()));
    return org._id;
  };

  beforeEach(async () => {
    ctx = await embedded.open();
    await ctx.store.ready();
    repos = createRepositories(ctx.store);
    publisher = new RecordingPublisher();
    clock = now.getTime();
    gate = new MemoryOnceGate(() => clock);
    detector = new AnomalyDetector(repos, publisher, gate, { intervalMs: 0, namespace: 'test' }, pino({ level: 'silent' }));
  });
  afterEach(() => ctx.cleanup());

  it('fires each rule on its seeded usage, with SPEC data, and stays quiet on normal traffic, short history and heavier prompts on the same model', async () => {
    const orgs = {
      spike: await seed('spike', 'growth', hourlySpikeUsage),
      runaway: await seed('runaway', 'free', runawayAgentUsage),
      drift: await seed('drift', 'growth', modelDriftUsage),
      surge: await seed('surge', 'growth', volumeSurgeUsage),
      steady: await seed('steady', 'growth', steadyUsage),
      young: await seed('young', 'free', shortHistoryUsage),
      heavier: await seed('heavier', 'growth', heavierPromptsUsage),
    };
    const events = await detector.check(now);
    const fired = Object.fromEntries(Object.entries(orgs).map(([name, id]) => [name, events.filter((e) => e.orgid === id).map((e) => e.type)]));
    expect(fired).toEqual({
      spike: ['cost_anomaly.hourly_spike'],
      runaway: ['cost_anomaly.runaway_agent'],
      drift: ['cost_anomaly.model_drift'],
      surge: ['cost_anomaly.volume_surge'],
      steady: [],
      young: [],
      heavier: [],
    });
    expect(publisher.events).toEqual(events);
    for (const event of events) {
      expect(isGatewayEvent(event)).toBe(true);
      expect(event.source).toBe('/svc/webhook-dispatcher');
      expect(Object.keys(event.data)).toEqual([
        'anomaly_id',
        'anomaly_type',
        'severity',
        'current_value',
        'threshold_value',
        'multiplier',
        'message',
        'details',
        'detected_at',
      ]);
      expect(event.data).toMatchObject({ anomaly_id: expect.stringMatching(/^anom_[0-9a-f]{20}$/), detected_at: now.toISOString() });
      expect(event.type).toBe(`cost_anomaly.${(event.data as { anomaly_type: string }).anomaly_type}`);
    }
    expect(events.find((e) => e.orgid === orgs.runaway)?.data).toMatchObject({ current_value: 60, threshold_value: 50, details: { agent: 'crawler', daily_budget: 10 } });
    expect(detector.lastCheck).toEqual({ at: now, organizations: 7, fired: 4 });
  });

  it('fires once per organization and rule within a rolling hour, however often it checks', async () => {
    const orgId = await seed('runaway', 'free', runawayAgentUsage);
    expect(await detector.check(now)).toHaveLength(1);
    const later = async (ms: number) => {
      clock = now.getTime() + ms;
      return detector.check(new Date(clock));
    };
    expect(await later(1_000)).toEqual([]);
    expect(await later(2_000)).toEqual([]);
    // Still running away an hour later: one more.
    await repos.usage.recordBatch(runawayAgentUsage(orgId, now.getTime() + HOUR_MS));
    expect(await later(HOUR_MS - 1_000)).toEqual([]);
    const again = await later(HOUR_MS + 1_000);
    expect(again.map((e) => e.type)).toEqual(['cost_anomaly.runaway_agent']);
    expect(publisher.ofType('cost_anomaly.runaway_agent').map((e) => e.orgid)).toEqual([orgId, orgId]);
  });

  it('does not fire again across the top of the hour (the window is not the UTC hour)', async () => {
    // 30 s before a full hour, then 30 s after it: the same lasting anomaly.
    const beforeTop = new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS - 30_000);
    const orgId = await seed('runaway', 'free', (id) => runawayAgentUsage(id, beforeTop.getTime()));
    clock = beforeTop.getTime();
    expect((await detector.check(beforeTop)).map((e) => e.orgid)).toEqual([orgId]);
    clock = beforeTop.getTime() + 60_000;
    expect(await detector.check(new Date(clock))).toEqual([]);
  });

  it('releases the window when the event could not be published, so the next check fires it', async () => {
    const orgId = await seed('runaway', 'free', runawayAgentUsage);
    const published: GatewayEvent[] = [];
    let queueUp = false;
    const flaky: EventPublisher = {
      publish: async (event) => {
        if (!queueUp) return false;
        published.push(event);
        return true;
      },
    };
    const withFlakyQueue = new AnomalyDetector(repos, flaky, gate, { intervalMs: 0, namespace: 'test' }, pino({ level: 'silent' }));
    expect(await withFlakyQueue.check(now)).toEqual([]);
    expect(gate.size).toBe(0);
    queueUp = true;
    const fired = await withFlakyQueue.check(new Date(now.getTime() + 60_000));
    expect(fired.map((e) => [e.orgid, e.type])).toEqual([[orgId, 'cost_anomaly.runaway_agent']]);
    expect(published).toEqual(fired);
    expect(await withFlakyQueue.check(new Date(now.getTime() + 120_000))).toEqual([]);
  });

  it('runs by itself every interval once the module starts, and stops on destroy', async () => {
    await seed('drift', 'growth', modelDriftUsage);
    const ticking = new AnomalyDetector(repos, publisher, gate, { intervalMs: 20, namespace: 'test' }, pino({ level: 'silent' }));
    ticking.onModuleInit();
    try {
      const event = await publisher.waitFor('cost_anomaly.model_drift', 2_000);
      expect(event.data.details).toMatchObject({ agent: 'summarizer' });
    } finally {
      await ticking.onModuleDestroy();
    }
    const count = publisher.events.length;
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(publisher.events).toHaveLength(count);
  });

  it('reads the daily budget from the policy override', async () => {
    const orgId = await seed('runaway', 'free', runawayAgentUsage);
    await repos.policies.patch(asOrgId(orgId), { daily_budget: 100 });
    expect(await detector.check(now)).toEqual([]);
  });
});
