import { randomBytes } from 'node:crypto';
import type { Principal } from '@svc/auth';
import { asOrgId, OrganizationEntity, PlanTier, PolicyOverrides, silentLogger } from '@svc/domain';
import { RecordingPublisher } from '@svc/events';
import { InvalidationBus, Redis } from '@svc/platform';
import { GovernanceInput } from './contract';
import { createOrg, inputFor, openTestRepositories, principalFor, testConfig, testMasterKeys, TestRepositories } from './governance.fixtures';
import { ChainGovernanceService, GovernanceConfig, GovernanceOptions } from './governance.service';

/** A ChainGovernanceService over an embedded store, with a recording publisher (specs and benchmarks). */
export interface Harness {
  service: ChainGovernanceService;
  db: TestRepositories;
  publisher: RecordingPublisher;
  invalidation: InvalidationBus;
  org: OrganizationEntity;
  principal: Principal;
  masterKeys: ReturnType<typeof testMasterKeys>;
  input(overrides?: Partial<GovernanceInput>): GovernanceInput;
  /** Stores policy overrides and invalidates the cache as the admin API does. */
  setPolicy(overrides: PolicyOverrides): Promise<void>;
  newOrg(plan?: PlanTier, policy?: PolicyOverrides): Promise<{ org: OrganizationEntity; principal: Principal }>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  redis?: Redis | null;
  config?: Partial<GovernanceConfig>;
  options?: GovernanceOptions;
  plan?: PlanTier;
  policy?: PolicyOverrides;
}

export async function createHarness(options: HarnessOptions = {}): Promise<Harness> {
  const db = await openTestRepositories();
  const publisher = new RecordingPublisher();
  const invalidation = new InvalidationBus(null, silentLogger());
  const masterKeys = testMasterKeys();
  const service = new ChainGovernanceService(
    {
      redis: options.redis ?? null,
      repositories: db.repositories,
      publisher,
      invalidation,
      config: testConfig(options.config),
      logger: silentLogger(),
      masterKeys,
    },
    { keyPrefix: `test:${randomBytes(5).toString('hex')}`, approvalSweepMs: 0, ...options.options },
  );
  const newOrg = async (plan: PlanTier = 'growth', policy?: PolicyOverrides) => {
    const org = await createOrg(db.repositories, plan);
    if (policy) await db.repositories.policies.replace(asOrgId(org._id), policy);
    return { org, principal: principalFor(org) };
  };
  const first = await newOrg(options.plan ?? 'growth', options.policy);
  const harness: Harness = {
    service,
    db,
    publisher,
    invalidation,
    org: first.org,
    principal: first.principal,
    masterKeys,
    input: (overrides = {}) => inputFor(harness.principal, overrides),
    setPolicy: async (overrides) => {
      await db.repositories.policies.patch(asOrgId(harness.org._id), overrides);
      await invalidation.publish('policy', harness.org._id);
    },
    newOrg,
    close: async () => {
      await service.close();
      await invalidation.close();
      await db.close();
    },
  };
  return harness;
}
