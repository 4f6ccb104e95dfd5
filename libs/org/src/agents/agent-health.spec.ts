import { agentHealth, agentsHealth, percentile } from './agent-health';

const at = new Date('2030-01-01T12:00:00Z');
type Extra = { agent?: string | null; blocked_by?: string; cost?: number; created_at?: Date; provider_call?: boolean };
/** A record as agent health reads it; a provider call unless blocked or said otherwise. */
const sample = (latency: number, status = 200, extra: Extra = {}) => ({
  agent: extra.agent === undefined ? 'bot' : extra.agent,
  latency_ms: latency,
  status_code: status,
  blocked_by: extra.blocked_by ?? null,
  cost: extra.cost ?? 0.01,
  created_at: extra.created_at ?? at,
  provider_call: extra.provider_call ?? extra.blocked_by === undefined,
});

describe('agent health', () => {
  it('takes nearest-rank percentiles', () => {
    const values = Array.from({ length: 20 }, (_, i) => (i + 1) * 10);
    expect(percentile(values, 50)).toBe(100);
    expect(percentile(values, 95)).toBe(190);
    expect(percentile([], 95)).toBe(0);
  });

  it('scores a clean, fast agent 100 healthy', () => {
    const health = agentHealth('bot', [sample(100), sample(200), sample(300)]);
    expect(health).toMatchObject({ score: 100, status: 'healthy', requests: 3, executions: 3, errors: 0, error_rate: 0, p50_latency_ms: 200, p95_latency_ms: 300, total_cost: 0.03 });
  });

  it('takes errors, slowness and governance blocks off the score', () => {
    const samples = [sample(100), sample(100), sample(100), sample(6_000, 502), sample(100, 403, { blocked_by: 'pii_detected', cost: 0 })];
    const health = agentHealth('bot', samples);
    // error rate 1/4 -> 75; p95 6000 ms -> -5; 1 of 5 blocked -> -4
    expect(health).toMatchObject({ errors: 1, error_rate: 0.25, blocked: 1, executions: 4, p95_latency_ms: 6000, score: 66, status: 'unhealthy' });
  });

  it('counts replays and refusals before governance as executions, but takes latency percentiles over the provider calls', () => {
    const answeredAtOnce = { cost: 0, provider_call: false };
    const samples = [
      sample(400),
      sample(600),
      // Two idempotent replays (served) and a 404 for an unknown route (an error), each in ~1 ms.
      sample(1, 200, answeredAtOnce),
      sample(1, 200, answeredAtOnce),
      sample(2, 404, answeredAtOnce),
    ];
    const health = agentHealth('bot', samples);
    expect(health).toMatchObject({ requests: 5, executions: 5, errors: 1, error_rate: 0.2, p50_latency_ms: 400, p95_latency_ms: 600, total_cost: 0.02 });
  });

  it('groups samples by agent, unattributed ones apart, busiest first', () => {
    const list = agentsHealth([sample(100, 200, { agent: 'a' }), sample(100, 200, { agent: 'b' }), sample(100, 200, { agent: 'b' }), sample(100, 200, { agent: null })]);
    expect(list.map((h) => [h.agent_name, h.requests])).toEqual([['b', 2], ['a', 1], ['unattributed', 1]]);
  });
});
