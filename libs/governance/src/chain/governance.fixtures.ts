import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MasterKeys, Principal } from '@svc/auth';
import { asOrgId, createRepositories, EmbeddedDocumentStore, OrganizationEntity, PlanTier, Repositories, silentLogger } from '@svc/domain';
import { effectivePolicy, GovernancePolicy } from '../data/policy';
import { Tier } from '../data/tiers';
import { ChainContext, GovernanceFlags, OrgProfile } from './context';
import { GovernanceInput } from './contract';
import type { GovernanceConfig } from './governance.service';

/** Test support for the chain's specs (no jest globals here). */

export interface TestRepositories {
  repositories: Repositories;
  close(): Promise<void>;
}

/** Repositories over a fresh embedded store in a temp directory. */
export async function openTestRepositories(): Promise<TestRepositories> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-governance-'));
  const store = await EmbeddedDocumentStore.open(dir, silentLogger(), { debounceMs: 10 });
  const repositories = createRepositories(store);
  await store.ready();
  return {
    repositories,
    close: async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export async function createOrg(repositories: Repositories, plan: PlanTier = 'growth', status: OrganizationEntity['subscription_status'] = 'active'): Promise<OrganizationEntity> {
  return repositories.organizations.create({ name: `Org ${randomBytes(3).toString('hex')}`, plan, subscription_status: status });
}

export function principalFor(org: Pick<OrganizationEntity, '_id' | 'name' | 'plan' | 'subscription_status'>, overrides: Partial<Principal> = {}): Principal {
  return {
    kind: 'api_key',
    orgId: asOrgId(org._id),
    organization: { _id: org._id, name: org.name, plan: org.plan, subscription_status: org.subscription_status },
    scopes: ['gateway:write', 'gateway:read'],
    keyId: 'key_test',
    keyName: 'test key',
    teamId: null,
    userId: null,
    role: null,
    deprecation: null,
    ...overrides,
  };
}

export function chatBody(text = 'Say hello.', extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model: 'gpt-4o-mini', messages: [{ role: 'user', content: text }], max_tokens: 100, ...extra };
}

let sequence = 0;

export function inputFor(principal: Principal, overrides: Partial<GovernanceInput> = {}): GovernanceInput {
  const body = overrides.body ?? chatBody();
  return {
    requestId: `gw_test${Date.now().toString(36)}${(sequence++).toString(36)}${randomBytes(3).toString('hex')}`,
    principal,
    endpoint: 'chat',
    format: 'openai',
    provider: 'openai',
    model: 'gpt-4o-mini',
    requestedModel: 'gpt-4o-mini',
    body,
    bodyBytes: Buffer.byteLength(JSON.stringify(body)),
    stream: false,
    agent: 'test key',
    runner: null,
    now: new Date(),
    ...overrides,
  };
}

/** A profile without a store, for unit specs of single stages. */
export function testProfile(overrides: Omit<Partial<OrgProfile>, 'tier' | 'policy'> & { tier?: Tier; policy?: Partial<GovernancePolicy> } = {}): OrgProfile {
  const tier = overrides.tier ?? 'growth';
  return {
    orgId: asOrgId('org_test'),
    subscriptionStatus: 'active',
    nodes: [],
    autoStopBudgets: [],
    ...overrides,
    tier,
    policy: { ...effectivePolicy(tier), ...overrides.policy },
  };
}

export const NO_FLAGS: GovernanceFlags = Object.freeze({ contentSafety: false, securityScanner: false });
export const ALL_FLAGS: GovernanceFlags = Object.freeze({ contentSafety: true, securityScanner: true });

export function contextFor(options: { input?: Partial<GovernanceInput>; profile?: Parameters<typeof testProfile>[0]; flags?: GovernanceFlags } = {}): ChainContext {
  const profile = testProfile(options.profile);
  const principal = principalFor({ _id: profile.orgId, name: 'Test', plan: profile.tier, subscription_status: 'active' });
  return new ChainContext(inputFor(principal, options.input), profile, options.flags ?? NO_FLAGS);
}

export function testConfig(overrides: Partial<GovernanceConfig> = {}): GovernanceConfig {
  return {
    CONTENT_SAFETY_SCAN: false,
    DLP_GUARDRAILS: false,
    SECURITY_SCANNER: false,
    PII_NER: false,
    PII_NER_URL: undefined,
    AI_CLASSIFIER_URL: undefined,
    APPROVAL_TTL_HOURS: 24,
    ...overrides,
  };
}

export function testMasterKeys(): MasterKeys {
  return { current: { version: 1, key: randomBytes(32) }, previous: [] };
}

/** The value, or a thrown error naming what was missing (instead of a non-null assertion). */
export function present<T>(value: T | null | undefined, what = 'value'): T {
  if (value === null || value === undefined) throw new Error(`expected a ${what}`);
  return value;
}
