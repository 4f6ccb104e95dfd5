import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Principal } from '@svc/auth';
import { asOrgId, createRepositories, EmbeddedDocumentStore, OrganizationEntity, Repositories, silentLogger, UsageRecordEntity } from '@svc/domain';
import { GatewayError } from '@svc/platform';
import { SimulatePolicyUseCase } from './simulate-policy.usecase';

// The 15th of the current month (usage records expire after 90 days, so the dates stay recent).
const today = new Date();
const day = (date: number, hour: number) => new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), date, hour));
const NOW = day(15, 12);
const at = (hour: number) => day(15, hour);

describe('SimulatePolicyUseCase', () => {
  let dir: string;
  let store: EmbeddedDocumentStore;
  let repositories: Repositories;
  let org: OrganizationEntity;
  let principal: Principal;
  let sequence = 0;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-admin-sim-'));
    store = await EmbeddedDocumentStore.open(dir, silentLogger(), { debounceMs: 10 });
    repositories = createRepositories(store);
    await store.ready();
    org = await repositories.organizations.create({ name: 'Sim', plan: 'growth' });
    principal = {
      kind: 'api_key',
      orgId: asOrgId(org._id),
      organization: { _id: org._id, name: org.name, plan: org.plan, subscription_status: org.subscription_status },
      scopes: ['admin:read'],
      keyId: 'key_sim',
      keyName: 'sim',
      teamId: null,
      userId: null,
      role: null,
      deprecation: null,
    };
  });
  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  const seed = (records: Partial<UsageRecordEntity>[]) =>
    repositories.usage.recordBatch(
      records.map((fields) => ({
        _id: `gw_sim${(sequence += 1)}`,
        org_id: org._id,
        key_id: 'key_sim',
        team_id: null,
        provider: 'openai',
        model: 'gpt-4o-mini',
        endpoint: 'chat',
        stream: false,
        status_code: 200,
        blocked_by: null,
        input_tokens: 10,
        output_tokens: 10,
        estimated_cost: 0.5,
        cost: 0.4,
        latency_ms: 100,
        upstream_latency_ms: 90,
        governance_ms: 1,
        agent: null,
        runner_id: null,
        session_id: null,
        created_at: NOW,
        replay: { estimated_input_tokens: 10, max_output_tokens: 10, body_bytes: 100, pii_findings: {}, safety_findings: {}, security_findings: {}, skills: [], reasoning_tokens: null },
        ...fields,
      })),
    );
  const run = (draft: Record<string, unknown>, maxRecords?: number) => new SimulatePolicyUseCase(repositories).execute(principal, draft, 24, NOW, maxRecords);

  it('seeds the budgets with the spend before the oldest replayed record when the window is truncated', async () => {
    await seed([8, 9, 10, 11].map((hour) => ({ created_at: at(hour) })));
    const truncated = await run({ daily_budget: 1 }, 2);
    expect(truncated).toMatchObject({ truncated: true, records_replayed: 2 });
    // 0.8 spent at 08:00 and 09:00 (not replayed): neither 0.5 estimate fits under 1 any more.
    expect(truncated.simulated).toEqual({ allowed: 0, blocked: 2, needs_approval: 0 });
    expect(truncated.blocked_by_stage).toEqual([expect.objectContaining({ stage: '2', codes: { daily_budget: 2 } })]);

    const whole = await run({ daily_budget: 1 });
    expect(whole).toMatchObject({ truncated: false, records_replayed: 4 });
    // 0.5 + 0.4 + 0.5 fits nothing after the second: allowed, allowed (0.8 spent), then refused.
    expect(whole.simulated).toEqual({ allowed: 2, blocked: 2, needs_approval: 0 });
  });

  it('seeds with the spend of the day and month before the window', async () => {
    const dayBefore = (hour: number) => day(14, hour);
    await seed([{ created_at: dayBefore(6), cost: 0.3 }, { created_at: day(2, 0), cost: 5 }, { created_at: dayBefore(13) }, { created_at: at(11) }]);
    // The window starts on the 14th at 12:00 with 0.3 spent that day (0.3 + 0.5 > 0.7); the 15th starts at 0.
    const daily = await run({ daily_budget: 0.7 });
    expect(daily.simulated).toEqual({ allowed: 1, blocked: 1, needs_approval: 0 });
    expect(daily.newly_blocked.example_request_ids).toHaveLength(1);
    // 5.3 spent this month before the window: no 0.5 estimate fits under 5.6.
    expect((await run({ monthly_budget: 5.6 })).blocked_by_stage).toEqual([expect.objectContaining({ codes: { monthly_budget: 2 } })]);
    expect((await run({ monthly_budget: 5.81 })).simulated).toEqual({ allowed: 1, blocked: 1, needs_approval: 0 });
  });

  it('answers 404 for a draft naming another organization, like POST /policies', async () => {
    const error = await run({ org_id: 'org_someone_else', rpm_limit: 5 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).status).toBe(404);
    expect((error as GatewayError).body).toMatchObject({ code: 'not_found', param: 'draft_policy.org_id' });
    await expect(run({ org_id: org._id, rpm_limit: 5 })).resolves.toMatchObject({ draft_policy: { rpm_limit: 5 } });
  });
});
