import type { BudgetNodeEntity } from '@svc/domain';
import { planDailyRequestQuota, PlanQuotaOverrides } from '../data/plan-quotas';
import type { StoreKind } from '../counters/failover-counter-store';
import { CounterKeys } from '../counters/keys';
import { dayKey, minuteOf, monthKey, PERIOD_TTL_SECONDS, periodKey, toMicros, toMicrosUp } from '../counters/periods';
import { Accumulator, AdmitLevel, AdmitPlan, SettlePlan, SettleTarget } from '../counters/types';
import type { ChainContext } from './context';
import type { StageId } from './contract';

/** Rate-limit keys live two windows: the current one and the one the status endpoint may still read. */
const RPM_TTL_SECONDS = 120;
/**
 * How long a settle's marker keeps a repeat of that settle from applying twice. A marker is a key
 * per served request (~150 bytes in Redis), so this bounds their number: 24 h held 8.6 million keys
 * (~1.3 GB) at a steady 100 requests a second. Repeats come from the failover replay (docs/governance.md)
 * of a settle whose reply was lost just before an outage; one replayed more than an hour after it
 * was applied counts twice, which errs on the side of refusing (spend over-counted, never under).
 */
const MARKER_TTL_SECONDS = 3_600;

/** How far the counter script goes, given the first stage that refused in process (if any). */
export function admitLevelBefore(stage: StageId | null): AdmitLevel {
  switch (stage) {
    case null:
      return AdmitLevel.Reserve;
    case '0':
      return AdmitLevel.Peek;
    case '0.5':
      return AdmitLevel.Quota;
    default:
      return AdmitLevel.Rate;
  }
}

/** What a settle needs to find the accumulators again and to word its events. */
export type TargetMeta =
  | { kind: 'daily' | 'monthly'; budget: number }
  | { kind: 'node'; node: Pick<BudgetNodeEntity, '_id' | 'name' | 'level' | 'budget_limit' | 'reset_period'> }
  | { kind: 'session'; sessionId: string };

/** `Reservation.detail`: plain data, so a reservation can be logged or moved between processes. */
export interface ReservationDetail {
  store: StoreKind;
  settle: Omit<SettlePlan, 'actualMicros'>;
  targets: TargetMeta[];
}

export interface PlannedRequest {
  plan: AdmitPlan;
  /** Budget nodes in plan.nodes order. */
  nodes: BudgetNodeEntity[];
}

function accumulator(key: string, limitUsd: number, ttlSeconds: number, seedUsd = 0): Accumulator {
  return { key, limitMicros: toMicros(limitUsd), ttlSeconds, seedMicros: toMicros(seedUsd) };
}

export function buildAdmitPlan(
  ctx: ChainContext,
  level: AdmitLevel,
  keys: CounterKeys,
  nodes: BudgetNodeEntity[],
  quotas?: PlanQuotaOverrides,
): AdmitPlan {
  const { input, policy } = ctx;
  const orgId = ctx.orgId;
  const now = input.now;
  const minute = minuteOf(now.getTime());
  const day = dayKey(now);
  const principal = input.principal;
  const autoStop = ctx.profile.autoStopBudgets.map((budget) => budget.limit);
  const session = ctx.session;
  return {
    orgId,
    level,
    releaseMarkerKey: keys.released(orgId, input.requestId),
    todayKey: keys.today(day),
    quota: { key: keys.quota(orgId, day), ttlSeconds: PERIOD_TTL_SECONDS.daily, limit: planDailyRequestQuota(ctx.profile.tier, quotas) },
    rpm: {
      key: keys.rpm(orgId, minute),
      keysKey: keys.rpmPerKey(orgId, minute),
      keyField: principal.keyId ?? (principal.userId ? `user:${principal.userId}` : 'unknown'),
      busyKey: keys.busiest(minute),
      limit: policy.rpm_limit,
      ttlSeconds: RPM_TTL_SECONDS,
    },
    day: accumulator(keys.day(orgId, day), policy.daily_budget, PERIOD_TTL_SECONDS.daily),
    month: accumulator(keys.month(orgId, monthKey(now)), policy.monthly_budget, PERIOD_TTL_SECONDS.monthly),
    estimateMicros: toMicrosUp(ctx.estimate?.estimated_cost ?? 0),
    autoStopMicros: autoStop.length > 0 ? toMicros(Math.min(...autoStop)) : null,
    budgetsKey: keys.budgets(day),
    budgetsTtlSeconds: PERIOD_TTL_SECONDS.daily,
    nodes:
      level >= AdmitLevel.Reserve
        ? nodes.map((node) => {
            const period = periodKey(node.reset_period, now);
            // A node created or lowered mid-period starts from what its scope had spent then.
            const seed = node.spend_seed?.period === period ? node.spend_seed.usd : 0;
            return accumulator(keys.node(orgId, node._id, period), node.budget_limit, PERIOD_TTL_SECONDS[node.reset_period], seed);
          })
        : [],
    session:
      level >= AdmitLevel.Reserve && session
        ? accumulator(keys.session(orgId, session.sessionId), session.budgetUsd, PERIOD_TTL_SECONDS.daily, session.spentUsd)
        : null,
  };
}

/** The reservation's settle plan (without the actual cost) and the meaning of each target. */
export function reservationDetail(ctx: ChainContext, plan: AdmitPlan, nodes: BudgetNodeEntity[], store: StoreKind, keys: CounterKeys): ReservationDetail {
  const thresholds = ctx.policy.budget_warning_thresholds;
  const target = (acc: Accumulator, limitMicros: number, list: number[]): SettleTarget => ({
    key: acc.key,
    ttlSeconds: acc.ttlSeconds,
    limitMicros,
    warnKey: keys.warned(acc.key),
    thresholds: list,
  });
  const targets: SettleTarget[] = [target(plan.day, plan.day.limitMicros, thresholds), target(plan.month, plan.month.limitMicros, thresholds)];
  const meta: TargetMeta[] = [
    { kind: 'daily', budget: ctx.policy.daily_budget },
    { kind: 'monthly', budget: ctx.policy.monthly_budget },
  ];
  plan.nodes.forEach((acc, index) => {
    const node = nodes[index];
    targets.push(target(acc, acc.limitMicros, node.alert_thresholds.length > 0 ? [...node.alert_thresholds] : thresholds));
    meta.push({ kind: 'node', node: { _id: node._id, name: node.name, level: node.level, budget_limit: node.budget_limit, reset_period: node.reset_period } });
  });
  if (plan.session && ctx.session) {
    targets.push(target(plan.session, 0, []));
    meta.push({ kind: 'session', sessionId: ctx.session.sessionId });
  }
  return {
    store,
    settle: {
      markerKey: keys.settled(plan.orgId, ctx.input.requestId),
      markerTtlSeconds: MARKER_TTL_SECONDS,
      reservedMicros: plan.estimateMicros,
      targets,
      todayKey: plan.todayKey,
      todayTtlSeconds: PERIOD_TTL_SECONDS.daily,
    },
    targets: meta,
  };
}
