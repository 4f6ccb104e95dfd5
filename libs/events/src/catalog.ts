/**
 * The event catalog (SPEC.md "Events", with DECISIONS.md filling the shapes SPEC.md leaves out).
 * Field names are the wire names delivered to webhooks, so they stay snake_case.
 */

export const EVENT_TYPES = [
  'budget.exceeded',
  'budget.warning',
  'guardrail.triggered',
  'approval.requested',
  'agent.failed',
  'cost_anomaly.hourly_spike',
  'cost_anomaly.runaway_agent',
  'cost_anomaly.model_drift',
  'cost_anomaly.volume_surge',
  'budget_hierarchy_alert',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/**
 * Older names accepted on webhook subscribe and stored as the catalog name (DECISIONS.md,
 * "Conflicts resolved"). Only catalog names are ever delivered.
 */
export const EVENT_TYPE_ALIASES: Readonly<Record<string, EventType>> = Object.freeze({
  'cost.exceeded': 'budget.exceeded',
  'approval.required': 'approval.requested',
});

export const GUARDRAIL_SUBTYPES = [
  'rate_limit',
  'pii_detected',
  'content_safety',
  'security_scan',
  'model_blocked',
] as const;
export type GuardrailSubtype = (typeof GUARDRAIL_SUBTYPES)[number];

export const COST_ANOMALY_TYPES = ['hourly_spike', 'runaway_agent', 'model_drift', 'volume_surge'] as const;
export type CostAnomalyType = (typeof COST_ANOMALY_TYPES)[number];

export type Severity = 'low' | 'medium' | 'high' | 'critical';

/** ISO 8601 timestamp string. */
export type IsoTimestamp = string;

export interface BudgetExceededData {
  /** Which limit blocked the request, e.g. `daily_budget`, `monthly_budget`. */
  blocked_by: string;
  daily_spent: number;
  daily_budget: number;
  model: string;
  estimated_cost: number;
  timestamp: IsoTimestamp;
}

export interface BudgetWarningData {
  /**
   * DECISIONS.md names `daily`/`monthly` (policy budgets); named budgets of the org API may be
   * `weekly` and emit this event through their `webhook` alert channel.
   */
  budget_type: 'daily' | 'weekly' | 'monthly';
  threshold_pct: number;
  spent: number;
  budget: number;
  utilization_pct: number;
  timestamp: IsoTimestamp;
  /** Named budgets only (source `/svc/org-api`): which budget crossed the threshold. */
  budget_id?: string;
  /** Named budgets only: that budget's `name`. */
  budget_name?: string;
}

export interface GuardrailRateLimitData {
  guardrail: 'rate_limit';
  current_count: number;
  rpm_limit: number;
  model: string;
  timestamp: IsoTimestamp;
}

export interface GuardrailPiiData {
  guardrail: 'pii_detected';
  reason: string;
  model: string;
  details: { pii_types: string[]; field: string };
  timestamp: IsoTimestamp;
}

/** One kind of blocking finding (DECISIONS.md: category and severity, never the matched text) and how many findings it stands for. */
export interface GuardrailFinding {
  category: string;
  severity: Severity;
  count: number;
}

export interface GuardrailFindingsData {
  guardrail: 'content_safety' | 'security_scan' | 'model_blocked';
  reason: string;
  model: string;
  details: { findings: GuardrailFinding[] };
  timestamp: IsoTimestamp;
}

/** Discriminated on `guardrail`, which carries the subtype. */
export type GuardrailTriggeredData = GuardrailRateLimitData | GuardrailPiiData | GuardrailFindingsData;

export interface ApprovalRequestedData {
  request_id: string;
  model: string;
  estimated_cost: number;
  hitl_threshold: number;
  approval_id: string;
  timestamp: IsoTimestamp;
}

/** Longest `agent.failed` error message delivered; longer ones are cut by `truncateError`. */
export const AGENT_ERROR_MAX_LENGTH = 500;

export interface AgentFailedData {
  runner_id: string;
  runner_name: string;
  /** Null when the runner failed before any session started. */
  session_id: string | null;
  /** Truncated error message (see `truncateError`). */
  error: string;
  timestamp: IsoTimestamp;
}

export interface CostAnomalyData<S extends CostAnomalyType = CostAnomalyType> {
  anomaly_id: string;
  anomaly_type: S;
  severity: Severity;
  current_value: number;
  threshold_value: number;
  multiplier: number;
  message: string;
  details: Record<string, unknown>;
  detected_at: IsoTimestamp;
}

export interface BudgetHierarchyAlertData {
  node_id: string;
  name: string;
  level: 'org' | 'team' | 'key';
  budget_limit: number;
  spent: number;
  threshold_pct: number;
  reset_period: 'daily' | 'weekly' | 'monthly';
  timestamp: IsoTimestamp;
}

/** The `data` shape of every catalog type. */
export interface EventDataMap {
  'budget.exceeded': BudgetExceededData;
  'budget.warning': BudgetWarningData;
  'guardrail.triggered': GuardrailTriggeredData;
  'approval.requested': ApprovalRequestedData;
  'agent.failed': AgentFailedData;
  'cost_anomaly.hourly_spike': CostAnomalyData<'hourly_spike'>;
  'cost_anomaly.runaway_agent': CostAnomalyData<'runaway_agent'>;
  'cost_anomaly.model_drift': CostAnomalyData<'model_drift'>;
  'cost_anomaly.volume_surge': CostAnomalyData<'volume_surge'>;
  'budget_hierarchy_alert': BudgetHierarchyAlertData;
}

const EVENT_TYPE_SET: ReadonlySet<string> = new Set(EVENT_TYPES);

export function isEventType(value: unknown): value is EventType {
  return typeof value === 'string' && EVENT_TYPE_SET.has(value);
}

/**
 * The catalog name for a catalog name or an accepted alias (`cost.exceeded`, `approval.required`);
 * null for anything else. Use it where subscriptions are written.
 */
export function normalizeEventType(value: string): EventType | null {
  const trimmed = value.trim();
  if (isEventType(trimmed)) return trimmed;
  return Object.hasOwn(EVENT_TYPE_ALIASES, trimmed) ? EVENT_TYPE_ALIASES[trimmed] : null;
}

/** `cost_anomaly.hourly_spike` for `hourly_spike`. */
export function costAnomalyEventType<S extends CostAnomalyType>(anomaly: S): `cost_anomaly.${S}` {
  return `cost_anomaly.${anomaly}`;
}

/** Cuts an error message to `max` characters (with an ellipsis) for `agent.failed`. */
export function truncateError(message: string, max = AGENT_ERROR_MAX_LENGTH): string {
  const flat = message.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, Math.max(0, max - 1))}…`;
}
