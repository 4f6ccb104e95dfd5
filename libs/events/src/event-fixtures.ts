/**
 * One sample `data` per catalog type, for specs (not exported from the library). Typed by
 * EventDataMap, so a shape that drifts from the catalog stops compiling.
 */
import type { EventDataMap, EventType } from './catalog';

const timestamp = '2025-01-15T10:00:00.000Z';

export const SAMPLE_DATA: { [K in EventType]: EventDataMap[K] } = {
  'budget.exceeded': {
    blocked_by: 'daily_budget',
    daily_spent: 12.5,
    daily_budget: 10,
    model: 'gpt-4o',
    estimated_cost: 0.42,
    timestamp,
  },
  'budget.warning': {
    budget_type: 'daily',
    threshold_pct: 75,
    spent: 7.6,
    budget: 10,
    utilization_pct: 76,
    timestamp,
  },
  'guardrail.triggered': {
    guardrail: 'pii_detected',
    reason: 'PII detected in request',
    model: 'gpt-4o',
    details: { pii_types: ['email', 'ssn'], field: 'messages[0].content' },
    timestamp,
  },
  'approval.requested': {
    request_id: 'gw_abc123',
    model: 'claude-sonnet-4',
    estimated_cost: 3.2,
    hitl_threshold: 1,
    approval_id: 'apr_xyz',
    timestamp,
  },
  'agent.failed': {
    runner_id: 'run_1',
    runner_name: 'nightly-build',
    session_id: 'ses_1',
    error: 'process exited with code 137',
    timestamp,
  },
  'cost_anomaly.hourly_spike': {
    anomaly_id: 'anom_1',
    anomaly_type: 'hourly_spike',
    severity: 'high',
    current_value: 42,
    threshold_value: 12,
    multiplier: 3.5,
    message: 'Hourly cost is 3.5x the 7-day average',
    details: { hour: '2025-01-15T10:00:00Z' },
    detected_at: timestamp,
  },
  'cost_anomaly.runaway_agent': {
    anomaly_id: 'anom_2',
    anomaly_type: 'runaway_agent',
    severity: 'critical',
    current_value: 60,
    threshold_value: 50,
    multiplier: 1.2,
    message: 'Agent "crawler" used 60% of the daily budget in one hour',
    details: { agent: 'crawler' },
    detected_at: timestamp,
  },
  'cost_anomaly.model_drift': {
    anomaly_id: 'anom_3',
    anomaly_type: 'model_drift',
    severity: 'medium',
    current_value: 0.3,
    threshold_value: 0.05,
    multiplier: 6,
    message: 'Requests moved to a model 6x costlier per request',
    details: { from: 'gpt-4o-mini', to: 'gpt-4o' },
    detected_at: timestamp,
  },
  'cost_anomaly.volume_surge': {
    anomaly_id: 'anom_4',
    anomaly_type: 'volume_surge',
    severity: 'low',
    current_value: 5200,
    threshold_value: 1000,
    multiplier: 5.2,
    message: 'Request count is 5.2x normal for this hour',
    details: {},
    detected_at: timestamp,
  },
  budget_hierarchy_alert: {
    node_id: 'bn_team_1',
    name: 'Platform team',
    level: 'team',
    budget_limit: 100,
    spent: 85,
    threshold_pct: 80,
    reset_period: 'daily',
    timestamp,
  },
};
