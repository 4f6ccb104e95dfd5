/**
 * Ready-made governance policies ("autopilot templates"): data, not code. `policy` holds gateway
 * policy fields (apply them with `POST /gateway/admin/policies`), `budgets` named budgets to create
 * with `POST /api/v1/admin/costs/budgets`.
 */
export interface AutopilotTemplate {
  id: string;
  name: string;
  category: 'cost' | 'security' | 'compliance' | 'operations';
  description: string;
  recommended_for: string;
  policy: Record<string, unknown>;
  budgets: { name: string; type: 'daily' | 'weekly' | 'monthly'; limit: number; alerts: { threshold: number; channels: string[] }[]; auto_stop?: boolean }[];
  events: string[];
}

export const AUTOPILOT_TEMPLATES: readonly AutopilotTemplate[] = Object.freeze([
  {
    id: 'cost-guardrails',
    name: 'Cost guardrails',
    category: 'cost',
    description: 'Caps each request at 0.50 USD, holds daily spend to 25 USD with warnings at 50/75/90 % and stops the organization at the daily limit.',
    recommended_for: 'Teams moving a first LLM feature to production',
    policy: { max_cost_per_request: 0.5, daily_budget: 25, monthly_budget: 500, budget_warning_thresholds: [50, 75, 90] },
    budgets: [{ name: 'Daily hard stop', type: 'daily', limit: 25, alerts: [{ threshold: 80, channels: ['webhook', 'slack'] }], auto_stop: true }],
    events: ['budget.warning', 'budget.exceeded'],
  },
  {
    id: 'pii-strict',
    name: 'Strict PII protection',
    category: 'security',
    description: 'Scans every prompt for personal data and credentials and blocks on any finding, including medium-severity types such as e-mail addresses.',
    recommended_for: 'Customer-support and HR assistants handling personal data',
    policy: { pii_scan_enabled: true, pii_action: 'block' },
    budgets: [],
    events: ['guardrail.triggered'],
  },
  {
    id: 'human-in-the-loop',
    name: 'Human approval for expensive calls',
    category: 'operations',
    description: 'Sends any request estimated above 2 USD to a reviewer before it is proxied (HITL gate), and notifies the team chat.',
    recommended_for: 'Batch and agentic workloads with long prompts',
    policy: { hitl_cost_threshold: 2, max_cost_per_request: 10 },
    budgets: [],
    events: ['approval.requested'],
  },
  {
    id: 'economy-models',
    name: 'Economy model allowlist',
    category: 'cost',
    description: 'Restricts traffic to an explicit list of low-cost models and a small per-request cap; edit the list to your providers.',
    recommended_for: 'Internal tools and prototypes',
    policy: { allowed_models: [], max_cost_per_request: 0.1 },
    budgets: [{ name: 'Monthly prototype budget', type: 'monthly', limit: 100, alerts: [{ threshold: 75, channels: ['email'] }] }],
    events: ['guardrail.triggered', 'budget.warning'],
  },
  {
    id: 'agent-runaway-protection',
    name: 'Runaway agent protection',
    category: 'operations',
    description: 'A low requests-per-minute ceiling, a weekly budget with early warnings and cost-anomaly notifications to catch looping agents.',
    recommended_for: 'Autonomous agents and managed runners',
    policy: { rpm_limit: 60, max_cost_per_request: 1 },
    budgets: [{ name: 'Weekly agent budget', type: 'weekly', limit: 200, alerts: [{ threshold: 50, channels: ['slack'] }, { threshold: 90, channels: ['webhook'] }] }],
    events: ['cost_anomaly.runaway_agent', 'cost_anomaly.hourly_spike', 'agent.failed'],
  },
  {
    id: 'regulated-compliance',
    name: 'Regulated workloads',
    category: 'compliance',
    description: 'PII blocking, prompt-injection and exfiltration scanning, approval above 1 USD and a monthly budget with finance alerts.',
    recommended_for: 'Finance, health and public-sector deployments',
    policy: { pii_scan_enabled: true, pii_action: 'block', hitl_cost_threshold: 1, monthly_budget: 1000 },
    budgets: [{ name: 'Monthly compliance budget', type: 'monthly', limit: 1000, alerts: [{ threshold: 90, channels: ['email', 'webhook'] }] }],
    events: ['guardrail.triggered', 'approval.requested', 'budget.exceeded'],
  },
]);
