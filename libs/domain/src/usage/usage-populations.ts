import type { Filter } from '../store/types';
import type { UsageRecordEntity } from './usage-record.entity';

/**
 * The records a report figure is taken over (docs/admin-api-policies.md "Usage, billing, latency",
 * docs/org-api-budgets.md "Cost metrics" and "Health and agents"). Every report reads the same fields, on
 * the embedded store and on MongoDB alike, and these conditions hold for records written before
 * `usage_source` existed:
 * - `requests`: every record: served, refused (by governance or before it: an unknown route, an
 *   unreadable body, a key without the scope) and idempotent replays.
 * - `provider_calls`: the requests a provider answered: its response headers arrived, so
 *   `upstream_latency_ms` is set (whatever the status, an error answer included). Never a
 *   refusal, an idempotent replay (`usage_source: replay`, answered from the stored answer) or a
 *   request that failed before the provider's headers (a timeout, a connection failure, an open
 *   breaker, a client that left), even one charged its prompt (`estimate`: sent, never answered).
 * - `governed`: the requests the governance chain decided on: refused or held by it
 *   (`blocked_by`), or allowed by it (`governance_ms` > 0, its time recorded to the microsecond).
 *   A request refused before governance ran and an idempotent replay (which never goes through the
 *   chain) record `governance_ms` 0 and no `blocked_by`.
 */
export type UsagePopulation = 'requests' | 'provider_calls' | 'governed';

const POPULATION_FILTERS: Readonly<Record<UsagePopulation, Filter<UsageRecordEntity> | null>> = {
  requests: null,
  provider_calls: { upstream_latency_ms: { $ne: null } },
  governed: { $or: [{ governance_ms: { $gt: 0 } }, { blocked_by: { $ne: null } }] },
};

/** The query condition of a population (null for every record), for `find`, `count` and `$match`. */
export function populationFilter(population: UsagePopulation): Filter<UsageRecordEntity> | null {
  return POPULATION_FILTERS[population];
}

/**
 * The `provider_calls` condition as an aggregation expression (true or false per record), for
 * figures taken inside a `$group` or `$project` over all the requests. `$ifNull` makes a missing
 * field null, as the query condition reads it.
 */
export const IS_PROVIDER_CALL = { $ne: [{ $ifNull: ['$upstream_latency_ms', null] }, null] } as const;

/**
 * `$group` accumulators for per-call averages: `calls` (provider calls) and `call_latency_ms` (the
 * sum of their `latency_ms`). An average is the sum ÷ `calls` (0 when none).
 */
export const PROVIDER_CALL_SUMS = {
  calls: { $sum: { $cond: [IS_PROVIDER_CALL, 1, 0] } },
  call_latency_ms: { $sum: { $cond: [IS_PROVIDER_CALL, '$latency_ms', 0] } },
} as const;
