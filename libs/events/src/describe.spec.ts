import type { EventType } from './catalog';
import { createEvent, EVENT_SOURCES, GatewayEvent } from './cloud-event';
import { describeEvent, EVENT_SUMMARY_MAX_LENGTH } from './describe';
import { SAMPLE_DATA } from './event-fixtures';

function eventOf<K extends EventType>(type: K, data = SAMPLE_DATA[type]): GatewayEvent {
  return createEvent(type, 'org_1', data, EVENT_SOURCES.gateway) as GatewayEvent;
}

describe('describeEvent', () => {
  it.each([
    ['budget.exceeded', ['Budget exceeded', 'daily_budget', '$12.50', '$10.00', 'gpt-4o', 'blocked']],
    ['budget.warning', ['Budget warning', 'daily', '$7.60', '$10.00', '76%', '75%']],
    ['guardrail.triggered', ['pii_detected', 'gpt-4o', 'email, ssn', 'messages[0].content']],
    ['approval.requested', ['apr_xyz', 'gw_abc123', 'claude-sonnet-4', '$3.20', '$1.00']],
    ['agent.failed', ['nightly-build', 'run_1', 'ses_1', 'code 137']],
    ['cost_anomaly.hourly_spike', ['hourly_spike', 'high', '3.5x the 7-day average', 'x3.5']],
    ['cost_anomaly.runaway_agent', ['runaway_agent', 'critical', 'crawler']],
    ['cost_anomaly.model_drift', ['model_drift', 'medium', 'x6']],
    ['cost_anomaly.volume_surge', ['volume_surge', 'low', '5.2x normal']],
    ['budget_hierarchy_alert', ['Platform team', 'team', '80%', 'daily', '$85.00', '$100.00']],
  ] as [EventType, string[]][])('summarises %s on one line', (type, fragments) => {
    const text = describeEvent(eventOf(type));
    for (const fragment of fragments) expect(text).toContain(fragment);
    expect(text).not.toMatch(/\n/);
    expect(text.length).toBeLessThanOrEqual(EVENT_SUMMARY_MAX_LENGTH);
  });

  it('names the named budget of a budget.warning from the organization API', () => {
    const data = { ...SAMPLE_DATA['budget.warning'], budget_type: 'weekly' as const, budget_id: 'budget_1', budget_name: 'Research team' };
    expect(describeEvent(eventOf('budget.warning', data))).toBe('Budget warning: weekly budget "Research team" spend $7.60 of $10.00 (76% used) crossed the 75% threshold');
  });

  it('summarises every guardrail subtype', () => {
    const timestamp = '2025-01-15T10:00:00.000Z';
    const rate = describeEvent(
      eventOf('guardrail.triggered', { guardrail: 'rate_limit', current_count: 61, rpm_limit: 60, model: 'm', timestamp }),
    );
    expect(rate).toBe('Guardrail rate_limit blocked a request for m: 61/60 requests per minute');
    for (const guardrail of ['content_safety', 'security_scan', 'model_blocked'] as const) {
      const text = describeEvent(
        eventOf('guardrail.triggered', {
          guardrail,
          reason: 'blocked by policy',
          model: 'm',
          details: { findings: [{ category: 'injection', severity: 'high', count: 1 }] },
          timestamp,
        }),
      );
      expect(text).toBe(`Guardrail ${guardrail} blocked a request for m: blocked by policy (findings: injection/high)`);
    }
  });

  it('flattens multi-line free text and caps the length', () => {
    const data = { ...SAMPLE_DATA['agent.failed'], session_id: null, error: `line one\nline two\n${'y'.repeat(600)}` };
    const text = describeEvent(eventOf('agent.failed', data));
    expect(text.startsWith('Agent runner "nightly-build" (run_1) failed: line one line two')).toBe(true);
    expect(text).toHaveLength(EVENT_SUMMARY_MAX_LENGTH);
    expect(text.endsWith('…')).toBe(true);
  });

  it('prints small amounts with enough precision (formatUsd)', () => {
    const approval = (estimated_cost: number, hitl_threshold: number) =>
      describeEvent(eventOf('approval.requested', { ...SAMPLE_DATA['approval.requested'], estimated_cost, hitl_threshold }));
    expect(approval(0.0042, 0.001)).toContain('estimated $0.0042 is above the $0.001 threshold');
    // Below a millionth: never $0.0000.
    expect(approval(0.00000025, 0.0000001)).toContain('estimated $0.00000025 is above the $0.0000001 threshold');
    // A cent up to a dollar keeps up to 4 decimals: not "$0.02 is above the $0.02 threshold".
    expect(approval(0.0151, 0.015)).toContain('estimated $0.0151 is above the $0.015 threshold');
    const spend = { ...SAMPLE_DATA.budget_hierarchy_alert, spent: 0.0000008, budget_limit: 0.000001 };
    expect(describeEvent(eventOf('budget_hierarchy_alert', spend))).toContain('limit: $0.0000008 of $0.000001 spent');
  });

  it('shows the USD values of the cost anomalies as dollars, tiny ones included, and the others as numbers', () => {
    const drift = { ...SAMPLE_DATA['cost_anomaly.model_drift'], current_value: 0.0000015, threshold_value: 0.000001, multiplier: 7.5 };
    expect(describeEvent(eventOf('cost_anomaly.model_drift', drift))).toContain('[current $0.0000015, threshold $0.000001, x7.5]');
    expect(describeEvent(eventOf('cost_anomaly.hourly_spike'))).toContain('[current $42.00, threshold $12.00, x3.5]');
    expect(describeEvent(eventOf('cost_anomaly.runaway_agent'))).toContain('[current 60, threshold 50, x1.2]');
    expect(describeEvent(eventOf('cost_anomaly.volume_surge'))).toContain('[current 5200, threshold 1000, x5.2]');
  });
});
