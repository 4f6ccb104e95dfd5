import { MODEL_PRICES } from '@svc/governance';
import { dynamicProvider, providerRegistry } from '../providers';
import { MetricLabels, OTHER_LABEL, TARGET_PROVIDER_LABEL, UNKNOWN_LABEL } from './metric-labels';

describe('MetricLabels', () => {
  const labels = new MetricLabels();

  it('labels a built-in provider by its id and any organization target as `target`', () => {
    for (const provider of providerRegistry.list()) expect(labels.provider(provider)).toBe(provider.id);
    const target = dynamicProvider({ id: 'acme-llm', baseUrl: 'https://llm.acme.example/v1' });
    expect(labels.provider(target)).toBe(TARGET_PROVIDER_LABEL);
    expect(labels.provider(undefined)).toBe(UNKNOWN_LABEL);
    // Breakers are keyed by id: a built-in's stays, a target's (or anything else) does not.
    expect(labels.providerId('groq')).toBe('groq');
    expect(labels.providerId('acme-llm')).toBe(TARGET_PROVIDER_LABEL);
    expect(labels.providerId('google')).toBe(TARGET_PROVIDER_LABEL);
  });

  it('keeps a model the registry or the price table knows for that provider, and makes any other `other`', () => {
    expect(labels.model('openai', 'gpt-4o-mini')).toBe('gpt-4o-mini');
    // In the price table only.
    expect(labels.model('openai', 'gpt-4.1-nano')).toBe('gpt-4.1-nano');
    expect(labels.model('anthropic', 'claude-3-opus')).toBe('claude-3-opus');
    // In the registry only (and mixed case, as listed).
    expect(labels.model('together', 'meta-llama/Llama-3.3-70B-Instruct-Turbo')).toBe('meta-llama/Llama-3.3-70B-Instruct-Turbo');
    expect(labels.model('ollama', 'llama3.2')).toBe('llama3.2');
    // A price key without a detected family (hosted by several providers).
    expect(labels.model('xai', 'grok-3')).toBe('grok-3');
    // Another family's model, a dated or random variant (labels keep only listed ids, never a snapshot of one).
    expect(labels.model('groq', 'gpt-4o')).toBe(OTHER_LABEL);
    expect(labels.model('openai', 'claude-3-opus')).toBe(OTHER_LABEL);
    expect(labels.model('openai', 'gpt-4o-2024-08-06-x7f3')).toBe(OTHER_LABEL);
    expect(labels.model('ollama', 'mistral-nemo:custom')).toBe(OTHER_LABEL);
    expect(labels.model('openai', 'GPT-4O')).toBe(OTHER_LABEL);
    // Route keys of the price table price a route, not a model.
    expect(labels.model('ollama', 'ollama/')).toBe(OTHER_LABEL);
    // A target's models are its organization's: never a label.
    expect(labels.model(TARGET_PROVIDER_LABEL, 'gpt-4o')).toBe(OTHER_LABEL);
    expect(labels.model(UNKNOWN_LABEL, 'gpt-4o')).toBe(UNKNOWN_LABEL);
    expect(labels.model('openai', undefined)).toBe(UNKNOWN_LABEL);
  });

  it('bounds the provider × model pairs by the registry and the price table, whatever clients send', () => {
    const registryModels = providerRegistry.list().reduce((sum, provider) => sum + provider.models.length, 0);
    const providers = providerRegistry.list().length;
    expect(labels.modelPairs).toBeLessThanOrEqual(registryModels + providers * (Object.keys(MODEL_PRICES).length + 2) + 3);
    const seen = new Set<string>();
    for (const provider of [...providerRegistry.list(), undefined]) {
      for (let i = 0; i < 50; i++) {
        const label = labels.provider(provider);
        seen.add(`${label} ${labels.model(label, `random-${i}-${Math.random()}`)}`);
      }
    }
    expect([...seen].sort()).toEqual([...providerRegistry.list().map((p) => `${p.id} other`), 'unknown unknown'].sort());
  });

  it('maps statuses to their code within 100-599 and governance reasons to codes, at most 64 of them', () => {
    expect(labels.status(200)).toBe('200');
    expect(labels.status(499)).toBe('499');
    expect(labels.status(600)).toBe(OTHER_LABEL);
    expect(labels.status(42)).toBe(OTHER_LABEL);
    expect(labels.status(200.5)).toBe(OTHER_LABEL);
    const reasons = new MetricLabels();
    expect(reasons.reason('rate_limit')).toBe('rate_limit');
    expect(reasons.reason('org_6f1e acme')).toBe(OTHER_LABEL);
    for (let i = 0; i < 63; i++) expect(reasons.reason(`code_${i}`)).toBe(`code_${i}`);
    expect(reasons.reason('code_63')).toBe(OTHER_LABEL);
    expect(reasons.reason('rate_limit')).toBe('rate_limit');
  });
});
