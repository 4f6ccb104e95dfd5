import { BudgetNodeEntity, nodeSpend, OrgId, Repositories, spendInPeriod } from '@svc/domain';
import type { Logger } from '@svc/platform';
import { CounterKeys } from '../counters/keys';
import { dayKey, monthKey, periodKey } from '../counters/periods';

export type SeedRepositories = Pick<Repositories, 'usage' | 'apiKeys'>;

/**
 * Spend already recorded (USD) per accumulator counter key of the current periods: the day, the
 * month and each budget node. A key names its period, so a seed never reaches another period.
 */
export type SpendSeeds = ReadonlyMap<string, number>;

export const NO_SEEDS: SpendSeeds = new Map();

interface Entry {
  /** The counter keys the seeds were computed for (they change with the period and the nodes). */
  signature: string;
  seeds: SpendSeeds;
  expiresAt: number;
}

/**
 * Where a budget accumulator starts when its counter does not exist yet: the spend of its period
 * so far, from the usage records. Without it, a budget node created mid-period, or counters lost
 * (a restart of the embedded mode, whose counters live in memory; Redis losing its data; the
 * memory fallback while Redis is down) counted from 0 and let through spend the budget's own view
 * already showed above its limit. The counter scripts apply a seed only when they create the
 * counter, so a seed that is some minutes old costs nothing once the counter exists.
 */
export class SpendSeedCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly repositories: SeedRepositories,
    private readonly keys: CounterKeys,
    private readonly logger: Logger,
    private readonly ttlMs = 5 * 60_000,
  ) {}

  async get(orgId: OrgId, nodes: readonly BudgetNodeEntity[], now = new Date()): Promise<SpendSeeds> {
    const day = this.keys.day(orgId, dayKey(now));
    const month = this.keys.month(orgId, monthKey(now));
    const nodeKeys = nodes.map((node) => this.keys.node(orgId, node._id, periodKey(node.reset_period, now)));
    const signature = [day, month, ...nodeKeys].join('|');
    const hit = this.entries.get(orgId);
    if (hit && hit.signature === signature && hit.expiresAt > now.getTime()) return hit.seeds;
    try {
      const [daySpent, monthSpent, perNode] = await Promise.all([
        spendInPeriod(this.repositories.usage, orgId, 'daily', now),
        spendInPeriod(this.repositories.usage, orgId, 'monthly', now),
        nodes.length ? nodeSpend(this.repositories, orgId, nodes, now) : new Map<string, number>(),
      ]);
      const seeds = new Map<string, number>([
        [day, daySpent],
        [month, monthSpent],
      ]);
      nodes.forEach((node, index) => seeds.set(nodeKeys[index], perNode.get(node._id) ?? 0));
      this.entries.set(orgId, { signature, seeds, expiresAt: now.getTime() + this.ttlMs });
      return seeds;
    } catch (err) {
      // Reading the usage records failed: count from what the counters hold, as before seeds existed.
      this.logger.warn({ err, org_id: orgId }, 'could not read recorded spend to seed budget counters');
      return hit?.signature === signature ? hit.seeds : NO_SEEDS;
    }
  }

  invalidate(orgId: string): void {
    this.entries.delete(orgId);
  }

  clear(): void {
    this.entries.clear();
  }
}
