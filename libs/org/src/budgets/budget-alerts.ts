import type { BudgetAlert } from '@svc/domain';

export interface AlertChange {
  index: number;
  triggered: boolean;
}

type AlertState = Pick<BudgetAlert, 'threshold' | 'triggered'> & Partial<Pick<BudgetAlert, 'triggered_at'>>;

/** Spend as a percentage of the limit (0 when the limit is not positive). */
export function utilizationPct(current: number, limit: number): number {
  return limit > 0 ? (current / limit) * 100 : 0;
}

/**
 * Whether a stored alert counts as triggered in the period that starts at `periodStart`: an alert
 * triggered in an earlier period is spent (the new period starts at zero). Without a period, or
 * without a recorded time, the stored flag counts.
 */
export function triggeredInPeriod(alert: AlertState, periodStart?: Date): boolean {
  if (!alert.triggered) return false;
  if (!periodStart || !alert.triggered_at) return true;
  return alert.triggered_at.getTime() >= periodStart.getTime();
}

/**
 * SPEC.md "Budget alert": an alert is triggered while spend is at or above its threshold (percent
 * of the limit) and reset once spend falls back below it (a new period starts at zero). An alert
 * triggered in an earlier period is triggered again (and notifies again) once the spend of the
 * current period reaches it. Returns the alerts whose state must change.
 */
export function alertChanges(alerts: readonly AlertState[], current: number, limit: number, periodStart?: Date): AlertChange[] {
  const pct = utilizationPct(current, limit);
  const changes: AlertChange[] = [];
  alerts.forEach((alert, index) => {
    const crossed = limit > 0 && current > 0 && pct >= alert.threshold;
    if (crossed && !triggeredInPeriod(alert, periodStart)) changes.push({ index, triggered: true });
    else if (!crossed && alert.triggered) changes.push({ index, triggered: false });
  });
  return changes;
}

/**
 * The alerts of a PUT that replaces them: an alert whose threshold was already there keeps that
 * alert's state (no second notification for a threshold already crossed); new thresholds start
 * untriggered. Each old alert is carried over at most once.
 */
export function carryOverAlerts(previous: readonly BudgetAlert[], next: readonly Pick<BudgetAlert, 'threshold' | 'channels'>[]): BudgetAlert[] {
  const unused = [...previous];
  return next.map((alert) => {
    const at = unused.findIndex((old) => old.threshold === alert.threshold);
    const old = at >= 0 ? unused.splice(at, 1)[0] : null;
    return { threshold: alert.threshold, channels: [...alert.channels], triggered: old?.triggered ?? false, triggered_at: old?.triggered_at ?? null };
  });
}
