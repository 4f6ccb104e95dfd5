import { TenantRepository } from '../shared/tenant-repository';
import type { OrgId } from '../shared/tenancy';
import type { DocumentStore, Filter, PipelineStage } from '../store/types';
import { populationFilter, UsagePopulation } from './usage-populations';
import { USAGE_RECORDS, UsageRecordEntity } from './usage-record.entity';

export interface TimeRange {
  /** Inclusive. */
  from: Date;
  /** Exclusive; default: no upper bound. */
  to?: Date;
}

export interface UsageTotals {
  requests: number;
  blocked: number;
  cost: number;
  estimated_cost: number;
  input_tokens: number;
  output_tokens: number;
  avg_latency_ms: number;
}

/** Totals for one group; the key is null for records without a value (e.g. no agent). */
export type UsageTotalsBy<K extends string> = UsageTotals & Record<K, string | null>;

/** Group key of a time bucket: a day (`2025-01-31`) or an hour (`2025-01-31T13`), UTC. */
const BUCKET_FORMATS = { day: '%Y-%m-%d', hour: '%Y-%m-%dT%H' } as const;
export type TimeBucket = keyof typeof BUCKET_FORMATS;

const TOTALS_GROUP = {
  requests: { $sum: 1 },
  blocked: { $sum: { $cond: [{ $eq: [{ $ifNull: ['$blocked_by', null] }, null] }, 0, 1] } },
  cost: { $sum: '$cost' },
  estimated_cost: { $sum: '$estimated_cost' },
  input_tokens: { $sum: '$input_tokens' },
  output_tokens: { $sum: '$output_tokens' },
  avg_latency_ms: { $avg: '$latency_ms' },
};

function rangeFilter(range: TimeRange): Filter<UsageRecordEntity> {
  return { created_at: range.to ? { $gte: range.from, $lt: range.to } : { $gte: range.from } };
}

/** The records of a range in a population (usage-populations.ts), as one query condition. */
function rangeOf(range: TimeRange, population: UsagePopulation): Filter<UsageRecordEntity> {
  const only = populationFilter(population);
  return only ? { ...rangeFilter(range), ...only } : rangeFilter(range);
}

function totalsRow<K extends string>(key: K, row: Record<string, unknown>): UsageTotalsBy<K> {
  const { _id, ...rest } = row;
  return { [key]: _id ?? null, ...(rest as unknown as UsageTotals), avg_latency_ms: Number(rest['avg_latency_ms'] ?? 0) } as UsageTotalsBy<K>;
}

export class UsageRecordRepository extends TenantRepository<UsageRecordEntity> {
  constructor(store: DocumentStore) {
    super(store, USAGE_RECORDS);
    this.stampsUpdatedAt = false;
  }

  /**
   * Writes a batch of records (usage is written in batches off the hot path); each names its org.
   * Idempotent per record: a record whose id is already stored is skipped, so a batch retried after
   * a partial write stores each record once and does not fail on the part that went in.
   */
  async recordBatch(records: UsageRecordEntity[]): Promise<void> {
    if (records.length) await this.acrossTenants.insertNew(records);
  }

  /** Records of a time range, newest first, with the total. */
  async listRange(orgId: OrgId, range: TimeRange, page: { offset?: number; limit?: number } = {}) {
    return this.list(orgId, { ...page, filter: rangeFilter(range), sort: { created_at: -1, _id: -1 } });
  }

  /** Every record of a range in time order, up to `limit` (policy replay, CSV export). */
  replay(orgId: OrgId, range: TimeRange, limit = 10_000): Promise<UsageRecordEntity[]> {
    return this.findIn(orgId, rangeFilter(range), { sort: { created_at: 1, _id: 1 }, limit });
  }

  countRange(orgId: OrgId, range: TimeRange, population: UsagePopulation = 'requests'): Promise<number> {
    return this.count(orgId, rangeOf(range, population));
  }

  async totals(orgId: OrgId, range: TimeRange): Promise<UsageTotals> {
    const [row] = await this.aggregateIn<Record<string, unknown>>(orgId, [
      { $match: rangeFilter(range) },
      { $group: { _id: null, ...TOTALS_GROUP } },
    ]);
    if (!row) return { requests: 0, blocked: 0, cost: 0, estimated_cost: 0, input_tokens: 0, output_tokens: 0, avg_latency_ms: 0 };
    const { _id, ...totals } = row;
    return totals as unknown as UsageTotals;
  }

  /** Totals per UTC day or hour, in time order. */
  async totalsByTime(orgId: OrgId, range: TimeRange, bucket: TimeBucket): Promise<UsageTotalsBy<'bucket'>[]> {
    const rows = await this.aggregateIn<Record<string, unknown>>(orgId, [
      { $match: rangeFilter(range) },
      { $group: { _id: { $dateToString: { format: BUCKET_FORMATS[bucket], date: '$created_at' } }, ...TOTALS_GROUP } },
      { $sort: { _id: 1 } },
    ]);
    return rows.map((row) => totalsRow('bucket', row));
  }

  /** Totals per value of a field (`provider`, `model`, `agent`, `key_id`, `team_id`), costliest first. */
  async totalsByField<K extends 'provider' | 'model' | 'agent' | 'key_id' | 'team_id' | 'endpoint'>(
    orgId: OrgId,
    range: TimeRange,
    field: K,
  ): Promise<UsageTotalsBy<K>[]> {
    const rows = await this.aggregateIn<Record<string, unknown>>(orgId, [
      { $match: rangeFilter(range) },
      { $group: { _id: `$${field}`, ...TOTALS_GROUP } },
      { $sort: { cost: -1, _id: 1 } },
    ]);
    return rows.map((row) => totalsRow(field, row));
  }

  /** Latencies of the provider calls (the newest `limit`) with their provider and model, for percentiles. */
  async latencySamples(orgId: OrgId, range: TimeRange, limit = 50_000): Promise<{ provider: string; model: string; latency_ms: number }[]> {
    const rows = await this.findIn(
      orgId,
      rangeOf(range, 'provider_calls'),
      { sort: { created_at: -1, _id: -1 }, limit, projection: { provider: 1, model: 1, latency_ms: 1 } },
    );
    return rows.map(({ provider, model, latency_ms }) => ({ provider, model, latency_ms }));
  }

  /** A custom aggregation over the organization's usage (a leading `$match` on the org is added). */
  aggregateUsage<R>(orgId: OrgId, pipeline: PipelineStage[]): Promise<R[]> {
    return this.aggregateIn<R>(orgId, pipeline);
  }

  /** Cross-tenant by design, for the anomaly worker: organizations with usage since a moment. */
  async listOrgIdsWithUsageSince(since: Date): Promise<string[]> {
    const rows = await this.acrossTenants.aggregate<{ _id: string }>([
      { $match: { created_at: { $gte: since } } },
      { $group: { _id: '$org_id' } },
      { $sort: { _id: 1 } },
    ]);
    return rows.map((row) => row._id);
  }

  /**
   * Keyset pagination: up to `limit` records of a range (of a population), newest first, strictly
   * older than `before` (the last record of the previous page, compared on `created_at` then `_id`).
   */
  listBefore(
    orgId: OrgId,
    range: TimeRange,
    before: { created_at: Date; _id: string } | null,
    limit: number,
    population: UsagePopulation = 'requests',
  ): Promise<UsageRecordEntity[]> {
    const filter: Filter<UsageRecordEntity> = before
      ? {
          $and: [
            rangeOf(range, population),
            { $or: [{ created_at: { $lt: before.created_at } }, { created_at: { $eq: before.created_at }, _id: { $lt: before._id } }] },
          ],
        }
      : rangeOf(range, population);
    return this.findIn(orgId, filter, { sort: { created_at: -1, _id: -1 }, limit: Math.max(1, Math.floor(limit)) });
  }
}
