import type { BudgetAlert } from '@svc/domain';

export interface AlertChange {
  index: number;
  triggered: boolean;
}

/** Spend as a percentage of the limit (0 when the limit is not positive). */
export function utilizationPct(current: number, limit: number): number {
  return limit > 0 ? (current / limit) * 100 : 0;
}

/**
 * SPEC.md "Budget alert": an alert is triggered while spend is at or above its threshold (percent
 * of the limit) and reset once spend falls back below it (a new period starts at zero). Returns the
 * alerts whose state must change.
 */
export function alertChanges(alerts: readonly Pick<BudgetAlert, 'threshold' | 'triggered'>[], current: number, limit: number): AlertChange[] {
  const pct = utilizationPct(current, limit);
  const changes: AlertChange[] = [];
  alerts.forEach((alert, index) => {
    const crossed = limit > 0 && current > 0 && pct >= alert.threshold;
    if (crossed !== alert.triggered) changes.push({ index, triggered: crossed });
  });
  return changes;
}
