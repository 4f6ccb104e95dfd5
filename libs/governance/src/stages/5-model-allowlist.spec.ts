import { contextFor } from '../chain/governance.fixtures';
import { modelAllowlistStage } from './5-model-allowlist';

const withAllowlist = (allowed: string[], model = 'gpt-4o-mini', provider = 'openai') =>
  modelAllowlistStage(contextFor({ profile: { policy: { allowed_models: allowed } }, input: { model, provider } }));

describe('stage 5, model allowlist', () => {
  it('allows every model with an empty list', () => {
    expect(withAllowlist([]).outcome).toBe('ALLOW');
  });

  it('matches the resolved model, its bare id, provider/id and prefix wildcards, ignoring case', () => {
    expect(withAllowlist(['GPT-4o-mini']).outcome).toBe('ALLOW');
    expect(withAllowlist(['llama-3.3-70b-versatile'], 'groq/llama-3.3-70b-versatile', 'groq').outcome).toBe('ALLOW');
    expect(withAllowlist(['groq/llama-3.3-70b-versatile'], 'llama-3.3-70b-versatile', 'groq').outcome).toBe('ALLOW');
    expect(withAllowlist(['gpt-4o*']).outcome).toBe('ALLOW');
  });

  it('refuses other models with model_not_allowed GW_MODEL_001 and a model_blocked event', () => {
    const result = withAllowlist(['claude-sonnet-4-5', 'gpt-4.1']);
    if (result.outcome !== 'BLOCK') throw new Error('expected BLOCK');
    expect(result.error.status).toBe(403);
    expect(result.error.body).toMatchObject({ type: 'permission_error', code: 'model_not_allowed', gateway_error_code: 'GW_MODEL_001', param: 'model' });
    expect(result.error.body.message).toContain('claude-sonnet-4-5, gpt-4.1');
    expect(result.events?.[0]).toMatchObject({
      type: 'guardrail.triggered',
      data: { guardrail: 'model_blocked', model: 'gpt-4o-mini', details: { findings: [{ category: 'model_not_allowed', severity: 'high', count: 1 }] } },
    });
  });

  it('says a D catch-all call names no model (and what to add) when it is checked as the provider id', () => {
    const refuse = (body: unknown) => {
      const result = modelAllowlistStage(contextFor({ profile: { policy: { allowed_models: ['gpt-4o'] } }, input: { model: 'mistral', provider: 'mistral', endpoint: 'passthrough', body } }));
      if (result.outcome !== 'BLOCK') throw new Error('expected BLOCK');
      return result.error;
    };
    for (const body of [undefined, {}, { model: '' }, { model: 42 }]) {
      const error = refuse(body);
      expect(error.status).toBe(403);
      expect(error.body).toMatchObject({ type: 'permission_error', code: 'model_not_allowed', gateway_error_code: 'GW_MODEL_001', param: 'model' });
      expect(error.body.message).toMatch(/^This call names no model the gateway can read .* checked as provider mistral, .*\(gpt-4o\)\.$/);
      expect(error.body.remediation).toContain('mistral/*');
    }
    // A passthrough body that names the model keeps the usual message.
    expect(refuse({ model: 'mistral' }).body.message).toBe("The model mistral is not in the organization's allowed models (gpt-4o).");
    // What the remediation says to add lets the call through.
    const allowed = modelAllowlistStage(contextFor({ profile: { policy: { allowed_models: ['mistral/*'] } }, input: { model: 'mistral', provider: 'mistral', endpoint: 'passthrough' } }));
    expect(allowed.outcome).toBe('ALLOW');
  });
});
