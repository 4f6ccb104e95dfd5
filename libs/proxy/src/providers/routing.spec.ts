import { GatewayError } from '@svc/platform';
import { providerRegistry } from './registry';
import { detectProvider, parseExplicitModel, resolveRoute, RouteInput } from './routing';

function mismatch(input: RouteInput): GatewayError {
  try {
    resolveRoute(input);
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error(`expected a provider_mismatch for ${JSON.stringify(input)}`);
}

describe('detectProvider', () => {
  it.each([
    ['gpt-4o', 'openai'],
    ['gpt-4o-mini-2024-07-18', 'openai'],
    ['chatgpt-4o-latest', 'openai'],
    ['o1', 'openai'],
    ['o1-mini', 'openai'],
    ['o3-mini', 'openai'],
    ['o4-mini', 'openai'],
    ['ft:gpt-4o-mini:acme::abc123', 'openai'],
    ['text-embedding-3-small', 'openai'],
    ['claude-sonnet-4-5', 'anthropic'],
    ['claude-3-5-haiku-20241022', 'anthropic'],
    ['gemini-2.5-flash', 'gemini'],
    ['mistral-large-latest', 'mistral'],
    ['codestral-latest', 'mistral'],
    ['ministral-8b-latest', 'mistral'],
    ['pixtral-large-latest', 'mistral'],
    ['magistral-medium-latest', 'mistral'],
    ['open-mistral-nemo', 'mistral'],
    ['GPT-4o', 'openai'],
  ])('%s → %s', (model, provider) => {
    expect(detectProvider(model)?.id).toBe(provider);
  });

  it.each(['llama-3.3-70b', 'meta-llama/llama-3', 'deepseek-chat', 'grok-4', 'qwen2.5', 'open-mixtral-8x22b'])(
    '%s is not detected',
    (model) => {
      expect(detectProvider(model)).toBeUndefined();
    },
  );
});

describe('parseExplicitModel', () => {
  it('splits on a registry id or alias', () => {
    expect(parseExplicitModel('groq/llama-3.3-70b')).toEqual({ provider: providerRegistry.get('groq'), model: 'llama-3.3-70b' });
    expect(parseExplicitModel('google/gemini-2.0-flash')?.provider.id).toBe('gemini');
    expect(parseExplicitModel('openrouter/meta-llama/llama-3.3-70b-instruct')?.model).toBe('meta-llama/llama-3.3-70b-instruct');
  });

  it('leaves model ids whose first segment is not a provider', () => {
    expect(parseExplicitModel('meta-llama/llama-3')).toBeUndefined();
    expect(parseExplicitModel('gpt-4o')).toBeUndefined();
    expect(parseExplicitModel('groq/')).toBeUndefined();
    expect(parseExplicitModel('/gpt-4o')).toBeUndefined();
  });
});

describe('resolveRoute on the generic endpoint', () => {
  it.each([
    ['gpt-4o', 'openai', 'gpt-4o', 'detected'],
    ['claude-sonnet-4-5', 'anthropic', 'claude-sonnet-4-5', 'detected'],
    ['gemini-2.5-pro', 'gemini', 'gemini-2.5-pro', 'detected'],
    ['mistral-small-latest', 'mistral', 'mistral-small-latest', 'detected'],
    ['groq/llama-3.3-70b', 'groq', 'llama-3.3-70b', 'explicit'],
    ['google/gemini-2.0-flash', 'gemini', 'gemini-2.0-flash', 'explicit'],
    ['openai/gpt-4o', 'openai', 'gpt-4o', 'explicit'],
    ['groq/openai/gpt-oss-120b', 'groq', 'openai/gpt-oss-120b', 'explicit'],
    ['openrouter/anthropic/claude-3.5-sonnet', 'openrouter', 'anthropic/claude-3.5-sonnet', 'explicit'],
    ['ollama/mistral-nemo', 'ollama', 'mistral-nemo', 'explicit'],
    ['meta-llama/llama-3', 'openai', 'meta-llama/llama-3', 'fallback'],
    ['some-unknown-model', 'openai', 'some-unknown-model', 'fallback'],
  ])('%s → %s %s (%s)', (model, provider, upstreamModel, source) => {
    const route = resolveRoute({ model });
    expect({ provider: route.provider.id, upstreamModel: route.upstreamModel, source: route.source }).toEqual({
      provider,
      upstreamModel,
      source,
    });
    expect(route.requestedModel).toBe(model);
  });

  it('resolves aliases before anything else', () => {
    const aliases = new Map([
      ['fast', 'groq/llama-3.1-8b-instant'],
      ['smart', 'claude-opus-4-1'],
      ['gpt-4o', 'gpt-4o-2024-11-20'],
    ]);
    expect(resolveRoute({ model: 'fast', aliases })).toMatchObject({
      provider: { id: 'groq' },
      upstreamModel: 'llama-3.1-8b-instant',
      requestedModel: 'fast',
      alias: 'fast',
    });
    expect(resolveRoute({ model: 'smart', aliases })).toMatchObject({ provider: { id: 'anthropic' }, upstreamModel: 'claude-opus-4-1' });
    expect(resolveRoute({ model: 'gpt-4o', aliases }).upstreamModel).toBe('gpt-4o-2024-11-20');
    expect(resolveRoute({ model: 'claude-sonnet-4-5', aliases })).not.toHaveProperty('alias');
  });

  it('rejects an explicit prefix that names the wrong family', () => {
    const error = mismatch({ model: 'anthropic/gpt-4o' });
    expect(error.status).toBe(400);
    expect(error.body).toMatchObject({ type: 'invalid_request_error', code: 'provider_mismatch', param: 'model' });
    expect(error.body.message).toContain("'openai'");
    expect(error.body.message).toContain("'anthropic'");
  });

  it('routes to organization targets by prefix', () => {
    const registry = providerRegistry.withTargets([{ id: 'corp', baseUrl: 'https://llm.corp.example/v1' }]);
    expect(resolveRoute({ model: 'corp/gpt-4o', registry })).toMatchObject({ provider: { id: 'corp' }, upstreamModel: 'gpt-4o' });
  });

  it('requires a model', () => {
    expect(() => resolveRoute({ model: '' })).toThrow(GatewayError);
  });
});

describe('resolveRoute on provider-scoped endpoints', () => {
  it.each([
    ['openai', 'gpt-4o', 'gpt-4o'],
    ['openai', 'openai/gpt-4o', 'gpt-4o'],
    ['openai', 'my-finetune', 'my-finetune'],
    ['anthropic', 'claude-sonnet-4-5', 'claude-sonnet-4-5'],
    ['google', 'gemini-2.5-flash', 'gemini-2.5-flash'],
    ['gemini', 'google/gemini-2.5-flash', 'gemini-2.5-flash'],
    ['mistral', 'open-mixtral-8x22b', 'open-mixtral-8x22b'],
    ['groq', 'llama-3.3-70b-versatile', 'llama-3.3-70b-versatile'],
    ['groq', 'groq/llama-3.3-70b-versatile', 'llama-3.3-70b-versatile'],
    ['groq', 'openai/gpt-oss-120b', 'openai/gpt-oss-120b'],
    ['openrouter', 'anthropic/claude-3.5-sonnet', 'anthropic/claude-3.5-sonnet'],
    // OpenRouter's own ids live under its name (ownModelNamespace): its route keeps them whole.
    ['openrouter', 'openrouter/auto', 'openrouter/auto'],
    ['together', 'meta-llama/Llama-3.3-70B-Instruct-Turbo', 'meta-llama/Llama-3.3-70B-Instruct-Turbo'],
    ['ollama', 'mistral-nemo', 'mistral-nemo'],
    ['vllm', 'gpt-4o', 'gpt-4o'],
  ])('/v1/%s accepts %s as %s', (endpointProvider, model, upstreamModel) => {
    const route = resolveRoute({ endpointProvider, model });
    expect(route.upstreamModel).toBe(upstreamModel);
    expect(route.source).toBe('endpoint');
    expect(route.provider).toBe(providerRegistry.get(endpointProvider));
  });

  it.each([
    ['openai', 'claude-sonnet-4-5', 'anthropic'],
    ['anthropic', 'gpt-4o', 'openai'],
    ['gemini', 'gpt-4o', 'openai'],
    ['openai', 'gemini-2.5-pro', 'gemini'],
    ['mistral', 'claude-3-5-haiku-latest', 'anthropic'],
    ['openai', 'mistral-large-latest', 'mistral'],
    ['groq', 'gpt-4o', 'openai'],
    ['openrouter', 'claude-sonnet-4-5', 'anthropic'],
    ['deepseek', 'mistral-small-latest', 'mistral'],
    ['openai', 'groq/llama-3.3-70b', 'groq'],
  ])('/v1/%s rejects %s (belongs to %s)', (endpointProvider, model, owner) => {
    const error = mismatch({ endpointProvider, model });
    expect(error.status).toBe(400);
    expect(error.body.type).toBe('invalid_request_error');
    expect(error.body.code).toBe('provider_mismatch');
    expect(error.body.message).toBe(
      `Model '${model}' belongs to provider '${owner}' and cannot be sent to provider '${providerRegistry.get(endpointProvider)?.id}'`,
    );
    expect(error.body.remediation).toContain(`/v1/${owner}`);
  });

  it('checks the alias target, not the alias name', () => {
    const aliases = new Map([['house-model', 'claude-sonnet-4-5']]);
    expect(mismatch({ endpointProvider: 'openai', model: 'house-model', aliases }).body.code).toBe('provider_mismatch');
    expect(resolveRoute({ endpointProvider: 'anthropic', model: 'house-model', aliases }).upstreamModel).toBe('claude-sonnet-4-5');
  });

  it('answers 404 for an unknown provider path', () => {
    expect(() => resolveRoute({ endpointProvider: 'nope', model: 'gpt-4o' })).toThrow(
      expect.objectContaining({ status: 404 }),
    );
  });
});
