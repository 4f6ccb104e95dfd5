import { asOrgId, policyOverrides, Repositories } from '@svc/domain';
import type { InvalidationBus } from '@svc/platform';
import type { Principal } from '@svc/auth';
import { effectivePolicy, PolicyOverrides } from '../data/policy';
import { resolveTier } from '../data/tiers';
import type { OrgProfile } from './context';

export type ProfileRepositories = Pick<Repositories, 'organizations' | 'policies' | 'budgetNodes' | 'namedBudgets'>;

export interface ProfileCacheOptions {
  /** How long a profile is used without an invalidation (default 5 s: bounds staleness when a message is lost). */
  ttlMs?: number;
  maxEntries?: number;
}

interface Entry {
  profile: OrgProfile;
  expiresAt: number;
}

/**
 * The effective policy of each organization (tier defaults of its plan overlaid by its stored
 * overrides), with its budget nodes and auto-stop budgets, cached in process. A change published
 * on the InvalidationBus topics `policy` or `organization` (id = organization id) drops the entry
 * on every replica at once; the TTL bounds staleness when such a message is lost. Writers of
 * budget nodes and named budgets publish `policy` for the organization too.
 */
export class ProfileCache {
  private readonly entries = new Map<string, Entry>();
  private readonly loading = new Map<string, Promise<OrgProfile>>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly unsubscribe: (() => void)[] = [];
  /** Bumped by every invalidation, so a load that raced with one is not cached. */
  private generation = 0;

  constructor(
    private readonly repositories: ProfileRepositories,
    invalidation: InvalidationBus | null,
    options: ProfileCacheOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 5_000;
    this.maxEntries = options.maxEntries ?? 50_000;
    if (invalidation) {
      for (const topic of ['policy', 'organization'] as const) this.unsubscribe.push(invalidation.subscribe(topic, (orgId) => this.invalidate(orgId)));
    }
  }

  /** The profile of the principal's organization (the principal's organization fills in if its record is gone). */
  get(principal: Pick<Principal, 'orgId' | 'organization'>): Promise<OrgProfile> {
    const hit = this.entries.get(principal.orgId);
    if (hit && hit.expiresAt > Date.now()) return Promise.resolve(hit.profile);
    return this.load(principal.orgId, principal.organization);
  }

  /** The profile of an organization by id (health and admin views). */
  getById(orgId: string): Promise<OrgProfile> {
    return this.get({ orgId: asOrgId(orgId), organization: { _id: orgId, name: '', plan: 'free', subscription_status: 'active' } });
  }

  invalidate(orgId: string): void {
    this.generation++;
    this.entries.delete(orgId);
  }

  close(): void {
    for (const off of this.unsubscribe.splice(0)) off();
    this.entries.clear();
  }

  private load(orgId: string, fallback: Principal['organization']): Promise<OrgProfile> {
    const inFlight = this.loading.get(orgId);
    if (inFlight) return inFlight;
    const generation = this.generation;
    const promise = this.read(orgId, fallback)
      .then((profile) => {
        if (generation === this.generation) {
          if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
          this.entries.set(orgId, { profile, expiresAt: Date.now() + this.ttlMs });
        }
        return profile;
      })
      .finally(() => this.loading.delete(orgId));
    this.loading.set(orgId, promise);
    return promise;
  }

  private async read(id: string, fallback: Principal['organization']): Promise<OrgProfile> {
    const orgId = asOrgId(id);
    const [organization, policy, nodes, autoStop] = await Promise.all([
      this.repositories.organizations.findById(orgId),
      this.repositories.policies.get(orgId),
      this.repositories.budgetNodes.listAll(orgId),
      this.repositories.namedBudgets.listAutoStop(orgId),
    ]);
    const org = organization ?? fallback;
    const tier = resolveTier(org.plan) ?? 'free';
    return {
      orgId,
      tier,
      subscriptionStatus: org.subscription_status,
      policy: effectivePolicy(tier, policyOverrides(policy) as PolicyOverrides),
      nodes,
      autoStopBudgets: autoStop.filter((budget) => budget.type === 'daily').map((budget) => ({ id: budget._id, name: budget.name, limit: budget.limit })),
    };
  }
}
