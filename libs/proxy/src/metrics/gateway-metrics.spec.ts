import { dynamicProvider, providerRegistry, ProviderDefinition } from '../providers';
import { GatewayMetrics } from './gateway-metrics';

const builtin = (id: string): ProviderDefinition => providerRegistry.get(id) as ProviderDefinition;
const openai = builtin('openai');

/** The sample lines of one family in the exposition. */
function samples(text: string, family: string): string[] {
  return text.split('\n').filter((line) => line.startsWith(`${family}{`) || line.startsWith(`${family} `));
}

describe('GatewayMetrics', () => {
  it('exposes requests, latency, blocks, cost and breaker changes in Prometheus format', async () => {
    const metrics = new GatewayMetrics();
    metrics.observeRequest(openai, 'gpt-4o', 200, 0.12);
    metrics.observeRequest(openai, 'gpt-4o', 502, 0.3);
    metrics.observeBlock('rate_limit');
    metrics.observeCost(openai, 0.0025);
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

  it('counts client-chosen model names the registry and price table do not know as one `other` series', async () => {
    const metrics = new GatewayMetrics();
    const ollama = builtin('ollama');
    for (let i = 0; i < 250; i++) {
      metrics.observeRequest(openai, `gpt-4o-${i}-random`, 200, 0.01);
      metrics.observeRequest(ollama, `random-${i}`, 200, 0.01);
    }
    const text = await metrics.exposition();
    expect(text).not.toMatch(/random/);
    expect(samples(text, 'svc_gateway_requests_total')).toEqual([
      'svc_gateway_requests_total{provider="openai",model="other",status="200"} 250',
      'svc_gateway_requests_total{provider="ollama",model="other",status="200"} 250',
    ]);
    // One histogram per provider: its buckets, +Inf, sum and count.
    expect(samples(text, 'svc_gateway_request_duration_seconds_count')).toHaveLength(2);
  });

  it('labels every organization provider target `target`, never by its id or name, and refusals before routing `unknown`', async () => {
    const metrics = new GatewayMetrics();
    const target = dynamicProvider({ id: 'acme-secret-llm', displayName: 'Acme Secret LLM', baseUrl: 'https://llm.acme.example/v1', models: ['acme-model'] });
    const other = dynamicProvider({ id: 'globex-vllm', baseUrl: 'https://vllm.globex.example/v1' });
    metrics.observeRequest(target, 'acme-model', 200, 0.05);
    metrics.observeRequest(other, 'gpt-4o', 200, 0.05);
    metrics.observeCost(target, 0.5);
    metrics.observeBreakerChange('acme-secret-llm', 'open');
    metrics.observeRequest(undefined, undefined, 401, 0.001);
    const text = await metrics.exposition();
    expect(text).not.toMatch(/acme|globex/i);
    expect(text).toContain('svc_gateway_requests_total{provider="target",model="other",status="200"} 2');
    expect(text).toContain('svc_gateway_cost_usd_total{provider="target"} 0.5');
    expect(text).toContain('svc_gateway_circuit_breaker_state_changes_total{provider="target",state="open"} 1');
    expect(text).toContain('svc_gateway_requests_total{provider="unknown",model="unknown",status="401"} 1');
  });

  it('counts requests charged at the default price by provider and a bounded model label', async () => {
    const metrics = new GatewayMetrics();
    const groq = builtin('groq');
    metrics.observeUnpriced(openai, 'claude-unlisted-test-1');
    for (let i = 0; i < 50; i++) metrics.observeUnpriced(openai, `gpt-9-${i}`);
    // A model the provider's registry lists keeps its name.
    metrics.observeUnpriced(groq, 'openai/gpt-oss-20b');
    metrics.observeUnpriced(groq, 'meta-llama/Llama-3.3-70B-Instruct-Turbo');
    metrics.observeUnpriced(builtin('together'), 'meta-llama/Llama-3.3-70B-Instruct-Turbo');
    metrics.observeUnpriced(dynamicProvider({ id: 'acme-llm', baseUrl: 'https://llm.acme.example/v1' }), 'acme-model');
    const text = await metrics.exposition();
    expect(text).toContain('# HELP svc_gateway_unpriced_model_requests_total');
    expect(samples(text, 'svc_gateway_unpriced_model_requests_total')).toEqual([
      'svc_gateway_unpriced_model_requests_total{provider="openai",model="other"} 51',
      'svc_gateway_unpriced_model_requests_total{provider="groq",model="other"} 2',
      'svc_gateway_unpriced_model_requests_total{provider="together",model="meta-llama/Llama-3.3-70B-Instruct-Turbo"} 1',
      'svc_gateway_unpriced_model_requests_total{provider="target",model="other"} 1',
    ]);
    expect(text).not.toMatch(/gpt-9|acme|opus-4-8/);
  });

  it('keeps governance reasons and statuses to bounded values', async () => {
    const metrics = new GatewayMetrics();
    metrics.observeBlock('Not A Code {"x"}');
    for (let i = 0; i < 100; i++) metrics.observeBlock(`code_${i}`);
    metrics.observeRequest(openai, 'gpt-4o', 999, 0.01);
    const text = await metrics.exposition();
    expect(samples(text, 'svc_gateway_governance_blocks_total')).toHaveLength(65);
    expect(text).toContain('svc_gateway_governance_blocks_total{reason="other"} 37');
    expect(text).toContain('svc_gateway_requests_total{provider="openai",model="gpt-4o",status="other"} 1');
  });
});
