import { GatewayMetrics } from './gateway-metrics';

describe('GatewayMetrics', () => {
  it('exposes requests, latency, blocks, cost and breaker changes in Prometheus format', async () => {
    const metrics = new GatewayMetrics();
    metrics.observeRequest('openai', 'gpt-4o', 200, 0.12);
    metrics.observeRequest('openai', 'gpt-4o', 502, 0.3);
    metrics.observeBlock('rate_limit');
    metrics.observeCost('openai', 0.0025);
    metrics.observeBreakerChange('openai', 'open');
    const text = await metrics.exposition();
    expect(text).toContain('svc_gateway_requests_total{provider="openai",model="gpt-4o",status="200"} 1');
    expect(text).toContain('svc_gateway_request_duration_seconds_bucket{le="0.25",provider="openai",model="gpt-4o"} 1');
    expect(text).toContain('svc_gateway_governance_blocks_total{reason="rate_limit"} 1');
    expect(text).toContain('svc_gateway_cost_usd_total{provider="openai"} 0.0025');
    expect(text).toContain('svc_gateway_circuit_breaker_state_changes_total{provider="openai",state="open"} 1');
    expect(text).toContain('svc_gateway_process_resident_memory_bytes');
    const snapshot = await metrics.snapshot();
    expect(snapshot.total_requests).toBe(2);
    expect(snapshot.error_rate).toBe(0.5);
    expect(snapshot.p99_latency_ms).toBeGreaterThanOrEqual(120);
  });

  it('caps the number of model label values', async () => {
    const metrics = new GatewayMetrics();
    for (let i = 0; i < 250; i++) metrics.observeRequest('openai', `model-${i}`, 200, 0.01);
    const text = await metrics.exposition();
    expect(text).toContain('model="model-199"');
    expect(text).not.toContain('model="model-200"');
    expect(text).toContain('svc_gateway_requests_total{provider="openai",model="other",status="200"} 50');
  });
});
