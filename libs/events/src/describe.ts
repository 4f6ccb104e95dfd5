import { formatUsd } from '@svc/domain';
import type { CostAnomalyData, CostAnomalyType, GuardrailTriggeredData } from './catalog';
import type { GatewayEvent } from './cloud-event';

/** Longest summary `describeEvent` returns. */
export const EVENT_SUMMARY_MAX_LENGTH = 300;

/**
 * A short, one-line, human-readable summary of an event (team-chat posts, logs). Free text from
 * the event (reasons, messages, errors) is flattened to one line and the whole is capped at
 * EVENT_SUMMARY_MAX_LENGTH characters.
 */
export function describeEvent(event: GatewayEvent): string {
  return oneLine(summary(event));
}

function summary(event: GatewayEvent): string {
  switch (event.type) {
    case 'budget.exceeded': {
      const d = event.data;
      return (
        `Budget exceeded (${d.blocked_by}): daily spend ${formatUsd(d.daily_spent)} of ${formatUsd(d.daily_budget)}; ` +
        `request for ${d.model} (estimated ${formatUsd(d.estimated_cost)}) was blocked`
      );
    }
    case 'budget.warning': {
      const d = event.data;
      const which = d.budget_name === undefined ? d.budget_type : `${d.budget_type} budget "${d.budget_name}"`;
      return (
        `Budget warning: ${which} spend ${formatUsd(d.spent)} of ${formatUsd(d.budget)} ` +
        `(${pct(d.utilization_pct)} used) crossed the ${pct(d.threshold_pct)} threshold`
      );
    }
    case 'guardrail.triggered':
      return describeGuardrail(event.data);
    case 'approval.requested': {
      const d = event.data;
      return (
        `Approval requested (${d.approval_id}): request ${d.request_id} for ${d.model}, ` +
        `estimated ${formatUsd(d.estimated_cost)} is above the ${formatUsd(d.hitl_threshold)} threshold`
      );
    }
    case 'agent.failed': {
      const d = event.data;
      const session = d.session_id ? `, session ${d.session_id}` : '';
      return `Agent runner "${d.runner_name}" (${d.runner_id}${session}) failed: ${d.error}`;
    }
    case 'cost_anomaly.hourly_spike':
    case 'cost_anomaly.runaway_agent':
    case 'cost_anomaly.model_drift':
    case 'cost_anomaly.volume_surge':
      return describeAnomaly(event.data);
    case 'budget_hierarchy_alert': {
      const d = event.data;
      return (
        `Budget node "${d.name}" (${d.level}) crossed ${pct(d.threshold_pct)} of its ${d.reset_period} ` +
        `limit: ${formatUsd(d.spent)} of ${formatUsd(d.budget_limit)} spent`
      );
    }
    default:
      return unreachable(event);
  }
}

function describeGuardrail(d: GuardrailTriggeredData): string {
  switch (d.guardrail) {
    case 'rate_limit':
      return `Guardrail rate_limit blocked a request for ${d.model}: ${d.current_count}/${d.rpm_limit} requests per minute`;
    case 'pii_detected': {
      const types = d.details.pii_types.length ? d.details.pii_types.join(', ') : 'unspecified';
      return `Guardrail pii_detected blocked a request for ${d.model}: ${d.reason} (types: ${types}; field: ${d.details.field})`;
    }
    default: {
      const categories = [...new Set(d.details.findings.map((f) => `${f.category}/${f.severity}`))];
      const findings = categories.length ? ` (findings: ${categories.join(', ')})` : '';
      return `Guardrail ${d.guardrail} blocked a request for ${d.model}: ${d.reason}${findings}`;
    }
  }
}

/** The rules whose `current_value` / `threshold_value` are USD (docs/webhooks.md); the others count percent or requests. */
const USD_ANOMALIES: ReadonlySet<CostAnomalyType> = new Set<CostAnomalyType>(['hourly_spike', 'model_drift']);

function describeAnomaly(d: CostAnomalyData): string {
  const value = USD_ANOMALIES.has(d.anomaly_type) ? formatUsd : num;
  return (
    `Cost anomaly ${d.anomaly_type} (${d.severity}): ${d.message} ` +
    `[current ${value(d.current_value)}, threshold ${value(d.threshold_value)}, x${num(d.multiplier)}]`
  );
}

function pct(value: number): string {
  return `${num(value)}%`;
}

function num(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(2).replace(/\.?0+$/, '');
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= EVENT_SUMMARY_MAX_LENGTH ? flat : `${flat.slice(0, EVENT_SUMMARY_MAX_LENGTH - 1)}…`;
}

function unreachable(event: never): string {
  const unknown = event as { type?: unknown };
  return `Event ${String(unknown.type)}`;
}
