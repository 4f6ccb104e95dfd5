import { formatUsd, roundUsd } from '@svc/domain';
import type { CostAnomalyType, Severity } from '@svc/events';
import { AgentUsage, HOUR_MS, ModelUsage, totalOf, UsageSnapshot } from './usage-snapshot';

/**
 * The four cost-anomaly rules of SPEC.md, with the minimum baselines that keep them quiet on too
 * little history or on amounts too small to matter. docs/webhooks.md explains each.
 */
export const ANOMALY_THRESHOLDS = Object.freeze({
  hourly_spike: Object.freeze({ factor: 3, minHistoryHours: 24, minCurrentCost: 1, baselineFloor: 0.01 }),
  runaway_agent: Object.freeze({ budgetSharePct: 50 }),
  model_drift: Object.freeze({ factor: 5, minCurrentRequests: 5, minBaselineRequests: 10 }),
  volume_surge: Object.freeze({ factor: 5, minDays: 3, minCurrentRequests: 20 }),
});

/** One anomaly found; the detector adds `anomaly_id` and `detected_at`. */
export interface AnomalyFinding {
  anomaly_type: CostAnomalyType;
  severity: Severity;
  current_value: number;
  threshold_value: number;
  multiplier: number;
  message: string;
  details: Record<string, unknown>;
}

/** Every rule over one organization's snapshot; at most one finding per rule. */
export function evaluateAnomalies(snapshot: UsageSnapshot): AnomalyFinding[] {
  return [hourlySpike(snapshot), runawayAgent(snapshot), modelDrift(snapshot), volumeSurge(snapshot)].filter(
    (finding): finding is AnomalyFinding => finding !== null,
  );
}

/** Current-hour cost above 3x the average hourly cost of the 7 days before (at least 24 h of them). */
export function hourlySpike(s: UsageSnapshot): AnomalyFinding | null {
  const rule = ANOMALY_THRESHOLDS.hourly_spike;
  if (!s.firstUsageAt) return null;
  const baselineEnd = s.windowStart.getTime();
  const baselineStart = Math.max(baselineEnd - 7 * 24 * HOUR_MS, s.firstUsageAt.getTime());
  const hours = (baselineEnd - baselineStart) / HOUR_MS;
  if (hours < rule.minHistoryHours) return null;
  const current = totalOf(s.current).cost;
  const average = s.previousWeekCost / hours;
  const threshold = rule.factor * Math.max(average, rule.baselineFloor);
  if (current <= threshold || current < rule.minCurrentCost) return null;
  const multiplier = current / Math.max(average, rule.baselineFloor);
  return {
    anomaly_type: 'hourly_spike',
    severity: severity(current / threshold),
    current_value: roundUsd(current),
    threshold_value: roundUsd(threshold),
    multiplier: round(multiplier, 2),
    message: `Cost of the last hour (${formatUsd(current)}) is ${round(multiplier, 1)}x the 7-day hourly average (${formatUsd(average)})`,
    details: {
      ...windowOf(s),
      baseline_hourly_average: roundUsd(average),
      baseline_hours: round(hours, 1),
      current_requests: totalOf(s.current).requests,
    },
  };
}

/** One agent spent more than 50 % of the organization's daily budget within the last hour. */
export function runawayAgent(s: UsageSnapshot): AnomalyFinding | null {
  const rule = ANOMALY_THRESHOLDS.runaway_agent;
  if (!s.dailyBudget || s.dailyBudget <= 0) return null;
  const budget = s.dailyBudget;
  const runaways = s.current
    .filter((group): group is AgentUsage & { agent: string } => group.agent !== null)
    .map((group) => ({ agent: group.agent, cost: group.cost, share: (group.cost / budget) * 100 }))
    .filter((entry) => entry.share > rule.budgetSharePct)
    .sort((a, b) => b.share - a.share);
  const worst = runaways[0];
  if (!worst) return null;
  return {
    anomaly_type: 'runaway_agent',
    severity: severity(worst.share / rule.budgetSharePct),
    current_value: round(worst.share, 1),
    threshold_value: rule.budgetSharePct,
    multiplier: round(worst.share / rule.budgetSharePct, 2),
    message: `Agent "${worst.agent}" spent ${formatUsd(worst.cost)}, ${round(worst.share, 1)}% of the ${formatUsd(budget)} daily budget, in the last hour`,
    details: {
      ...windowOf(s),
      agent: worst.agent,
      cost: roundUsd(worst.cost),
      daily_budget: budget,
      agents: runaways.map((entry) => ({ agent: entry.agent, cost: roundUsd(entry.cost), share_pct: round(entry.share, 1) })),
    },
  };
}

/**
 * A switch to models more than 5x costlier per request, per agent (requests without one form
 * their own group): the agent's dominant models of the last hour are not those of the 24 hours
 * before, and what the new ones cost per completed request now is over 5x what the dominant
 * models of the baseline cost per request then. The same model doing heavier work is not a
 * switch; comparing per agent keeps a change of mix between agents from looking like one.
 */
export function modelDrift(s: UsageSnapshot): AnomalyFinding | null {
  const rule = ANOMALY_THRESHOLDS.model_drift;
  const drifts = [];
  for (const now of s.current) {
    const before = s.previousDay.find((group) => group.agent === now.agent);
    if (!before || before.completed < rule.minBaselineRequests) continue;
    const previousModels = dominantModels(before);
    const newModels = dominantModels(now).filter((model) => !previousModels.some((old) => old.model === model.model));
    const fresh = sumOf(newModels);
    const old = sumOf(previousModels);
    if (fresh.completed < rule.minCurrentRequests || old.completed === 0) continue;
    const baseline = old.cost / old.completed;
    const current = fresh.cost / fresh.completed;
    if (baseline <= 0 || current <= rule.factor * baseline) continue;
    drifts.push({ now, before, newModels, previousModels, completed: fresh.completed, baseline, current, multiplier: current / baseline });
  }
  drifts.sort((a, b) => b.multiplier - a.multiplier);
  const worst = drifts[0];
  if (!worst) return null;
  const who = worst.now.agent === null ? 'Requests without an agent' : `Agent "${worst.now.agent}"`;
  const names = (models: ModelUsage[]) => models.map((m) => m.model);
  const models = (group: AgentUsage) =>
    group.models.slice(0, 5).map((m) => ({ model: m.model, requests: m.requests, avg_cost: roundUsd(m.completed ? m.cost / m.completed : 0) }));
  return {
    anomaly_type: 'model_drift',
    severity: severity(worst.current / (rule.factor * worst.baseline)),
    current_value: roundUsd(worst.current),
    threshold_value: roundUsd(rule.factor * worst.baseline),
    multiplier: round(worst.multiplier, 2),
    message:
      `${who} switched to ${names(worst.newModels).join(', ')} from ${names(worst.previousModels).join(', ')}: ` +
      `${formatUsd(worst.current)} per request in the last hour, ${round(worst.multiplier, 1)}x the ${formatUsd(worst.baseline)} before`,
    details: {
      ...windowOf(s),
      agent: worst.now.agent,
      new_models: names(worst.newModels),
      previous_models: names(worst.previousModels),
      baseline_cost_per_request: roundUsd(worst.baseline),
      current_requests: worst.completed,
      baseline_requests: worst.before.completed,
      current_models: models(worst.now),
      baseline_models: models(worst.before),
      agents: drifts.map((d) => ({ agent: d.now.agent, new_models: names(d.newModels), multiplier: round(d.multiplier, 2) })),
    },
  };
}

/**
 * The models that carry a group's traffic: the busiest ones (by completed requests) that together
 * make more than half of it; usually one.
 */
export function dominantModels(group: AgentUsage): ModelUsage[] {
  const busiest = [...group.models].filter((m) => m.completed > 0).sort((a, b) => b.completed - a.completed || a.model.localeCompare(b.model));
  const dominant: ModelUsage[] = [];
  let covered = 0;
  for (const model of busiest) {
    if (covered * 2 > group.completed) break;
    dominant.push(model);
    covered += model.completed;
  }
  return dominant;
}

function sumOf(models: ModelUsage[]): { cost: number; completed: number } {
  return models.reduce((sum, m) => ({ cost: sum.cost + m.cost, completed: sum.completed + m.completed }), { cost: 0, completed: 0 });
}

/** Requests of the last hour above 5x the average of the same hour on previous days (at least 3). */
export function volumeSurge(s: UsageSnapshot): AnomalyFinding | null {
  const rule = ANOMALY_THRESHOLDS.volume_surge;
  if (s.sameHourRequests.length < rule.minDays) return null;
  const current = totalOf(s.current).requests;
  const normal = s.sameHourRequests.reduce((sum, day) => sum + day.requests, 0) / s.sameHourRequests.length;
  const threshold = rule.factor * Math.max(normal, 1);
  if (current <= threshold || current < rule.minCurrentRequests) return null;
  const multiplier = current / Math.max(normal, 1);
  return {
    anomaly_type: 'volume_surge',
    severity: severity(current / threshold),
    current_value: current,
    threshold_value: round(threshold, 2),
    multiplier: round(multiplier, 2),
    message: `${current} requests in the last hour, ${round(multiplier, 1)}x the normal ${round(normal, 1)} for this time of day`,
    details: { ...windowOf(s), normal_requests: round(normal, 2), days_compared: s.sameHourRequests.length, same_hour_requests: s.sameHourRequests },
  };
}

/** How far past its threshold a value is: up to 2x medium, up to 3x high, beyond critical. */
export function severity(ratio: number): Severity {
  const r = round(ratio, 6);
  if (r >= 3) return 'critical';
  if (r >= 2) return 'high';
  return 'medium';
}

function windowOf(s: UsageSnapshot): { window_start: string; window_end: string } {
  return { window_start: s.windowStart.toISOString(), window_end: s.now.toISOString() };
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
