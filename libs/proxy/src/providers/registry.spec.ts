import { BUILTIN_PROVIDERS } from './catalog';
import { listModels } from './models';
import { dynamicProvider, GATEWAY_ROUTE_SEGMENTS, providerRegistry, ProviderRegistry, resolveBaseUrl } from './registry';
import { ProviderDefinition } from './types';

const REQUIRED_IDS = [
  'openai',
  'anthropic',
  'gemini',
  'mistral',
  'groq',
  'deepseek',
  'together',
  'fireworks',
  'xai',
  'perplexity',
  'cerebras',
  'deepinfra',
  'openrouter',
  'ollama',
  'vllm',
];

describe('provider registry', () => {
  it('holds every provider DECISIONS.md names', () => {
    const ids = providerRegistry.list().map((p) => p.id);
    expect(ids).toEqual(expect.arrayContaining(REQUIRED_IDS));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('labels A, B and C once and everything else D with format A', () => {
    const byLabel = (label: string) => BUILTIN_PROVIDERS.filter((p) => p.label === label).map((p) => p.id);
    expect(byLabel('A')).toEqual(['openai']);
    expect(byLabel('B')).toEqual(['anthropic']);
    expect(byLabel('C')).toEqual(['gemini']);
    for (const provider of BUILTIN_PROVIDERS.filter((p) => p.label === 'D')) {
      expect({ id: provider.id, format: provider.format, auth: provider.auth }).toEqual({
        id: provider.id,
        format: 'openai',
        auth: 'bearer',
      });
    }
  });

  it('uses the vendors base URLs in their SDK sense', () => {
    const base = (id: string) => providerRegistry.get(id)?.baseUrl;
    expect(base('openai')).toBe('https://api.openai.com/v1');
    expect(base('anthropic')).toBe('https://api.anthropic.com');
    expect(base('gemini')).toBe('https://generativelanguage.googleapis.com');
    expect(base('mistral')).toBe('https://api.mistral.ai/v1');
    expect(base('groq')).toBe('https://api.groq.com/openai/v1');
    expect(base('ollama')).toBe('http://localhost:11434/v1');
    expect(base('vllm')).toBe('http://localhost:8000/v1');
    for (const provider of BUILTIN_PROVIDERS) expect(provider.baseUrl).toMatch(/^https?:\/\/[^/]+.*[^/]$/);
  });

  it('declares the credential form and fixed headers per label', () => {
    expect(providerRegistry.get('openai')).toMatchObject({ auth: 'bearer', headers: {} });
    expect(providerRegistry.get('anthropic')).toMatchObject({
      auth: 'x-api-key',
      headers: { 'anthropic-version': '2023-06-01' },
    });
    expect(providerRegistry.get('gemini')).toMatchObject({ auth: 'query-key' });
  });

  it('carries the auto-detection prefixes of the decision table', () => {
    expect(providerRegistry.get('openai')?.modelPrefixes).toEqual(['gpt-', 'chatgpt-', 'o1', 'o3', 'o4', 'ft:gpt-', 'text-embedding-']);
    expect(providerRegistry.get('anthropic')?.modelPrefixes).toEqual(['claude-']);
    expect(providerRegistry.get('gemini')?.modelPrefixes).toEqual(['gemini-']);
    expect(providerRegistry.get('mistral')?.modelPrefixes).toEqual([
      'mistral-',
      'codestral-',
      'ministral-',
      'pixtral-',
      'magistral-',
      'open-mistral-',
    ]);
    const detecting = BUILTIN_PROVIDERS.filter((p) => p.modelPrefixes.length).map((p) => p.id);
    expect(detecting).toEqual(['openai', 'anthropic', 'gemini', 'mistral']);
  });

  it('finds providers by alias and case-insensitively', () => {
    expect(providerRegistry.get('google')?.id).toBe('gemini');
    expect(providerRegistry.get('GROQ')?.id).toBe('groq');
    expect(providerRegistry.get('nope')).toBeUndefined();
  });

  it('lists models and knows which providers serve embeddings', () => {
    for (const provider of BUILTIN_PROVIDERS.filter((p) => p.models.length)) {
      for (const model of provider.models) expect(model.description.length).toBeGreaterThan(5);
    }
    expect(providerRegistry.get('openai')?.embeddings).toBe(true);
    expect(providerRegistry.get('mistral')?.embeddings).toBe(true);
    expect(providerRegistry.get('anthropic')?.embeddings).toBe(false);
  });

  it('only self-hosted servers run without a key', () => {
    expect(BUILTIN_PROVIDERS.filter((p) => !p.requiresKey).map((p) => p.id)).toEqual(['ollama', 'vllm', 'lmstudio']);
  });

  it('keeps ids usable as <ID>_BASE_URL / <ID>_API_KEY environment names', () => {
    for (const provider of BUILTIN_PROVIDERS) expect(provider.id).toMatch(/^[a-z0-9]+$/);
  });

  it("gives no provider, by id or alias, the first segment of one of the gateway's own /v1 routes", () => {
    for (const segment of GATEWAY_ROUTE_SEGMENTS) expect({ segment, provider: providerRegistry.get(segment)?.id }).toEqual({ segment, provider: undefined });
  });
});

function provider(id: string): ProviderDefinition {
  const found = providerRegistry.get(id);
  if (!found) throw new Error(`no provider ${id}`);
  return found;
}

describe('resolveBaseUrl', () => {
  const openai = provider('openai');

  it('applies the <PROVIDER>_BASE_URL override by lower-case id', () => {
    expect(resolveBaseUrl(openai, { openai: 'http://mock:9000/v1' })).toBe('http://mock:9000/v1');
    expect(resolveBaseUrl(provider('anthropic'), { openai: 'http://mock:9000/v1' })).toBe('https://api.anthropic.com');
  });

  it('defaults to the registry URL and strips trailing slashes', () => {
    expect(resolveBaseUrl(openai)).toBe('https://api.openai.com/v1');
    expect(resolveBaseUrl(openai, { openai: 'http://mock:9000/v1//' })).toBe('http://mock:9000/v1');
  });

  it('never overrides an organization target', () => {
    const target = dynamicProvider({ id: 'openai-proxy', baseUrl: 'https://llm.corp.example/v1/' });
    expect(resolveBaseUrl(target, { 'openai-proxy': 'http://elsewhere' })).toBe('https://llm.corp.example/v1');
  });
});

describe('organization provider targets', () => {
  const registry = providerRegistry.withTargets([
    { id: 'corp-vllm', baseUrl: 'https://vllm.corp.example/v1', models: ['qwen2.5-72b'] },
    { id: 'Edge', baseUrl: 'https://edge.example/v1', auth: 'x-api-key', requiresKey: false },
  ]);

  it('become D entries with format A next to the built-ins', () => {
    expect(registry.get('corp-vllm')).toMatchObject({
      label: 'D',
      format: 'openai',
      auth: 'bearer',
      modelScope: 'any',
      requiresKey: true,
      dynamic: true,
    });
    expect(registry.get('edge')).toMatchObject({ auth: 'x-api-key', requiresKey: false });
    expect(registry.get('openai')?.id).toBe('openai');
    expect(providerRegistry.get('corp-vllm')).toBeUndefined();
  });

  it('show up in GET /v1/models under their own id', () => {
    const entry = listModels(registry).data.find((m) => m.owned_by === 'corp-vllm');
    expect(entry).toEqual({
      id: 'corp-vllm/qwen2.5-72b',
      object: 'model',
      created: 0,
      owned_by: 'corp-vllm',
      description: 'corp-vllm model (organization provider target)',
    });
  });

  it('cannot shadow a built-in id or alias, or carry a slash', () => {
    expect(() => providerRegistry.withTargets([{ id: 'groq', baseUrl: 'https://x.example/v1' }])).toThrow(/already registered/);
    expect(() => providerRegistry.withTargets([{ id: 'google', baseUrl: 'https://x.example/v1' }])).toThrow(/already registered/);
    expect(() => providerRegistry.withTargets([{ id: 'a/b', baseUrl: 'https://x.example/v1' }])).toThrow(/Invalid/);
    expect(() => providerRegistry.withTargets([{ id: 'ok', baseUrl: 'ftp://x.example' }])).toThrow(/http/);
  });

  it('returns the same registry when there are none', () => {
    expect(providerRegistry.withTargets([])).toBe(providerRegistry);
  });

  it('is data: a new provider is one entry', () => {
    const custom = new ProviderRegistry([{ ...BUILTIN_PROVIDERS[4], id: 'newco', displayName: 'NewCo', aliases: [] }]);
    expect(custom.get('newco')).toMatchObject({ label: 'D', format: 'openai' });
  });
});

describe('listModels', () => {
  it('answers the GET /v1/models shape with ids that route on the generic endpoint', () => {
    const list = listModels();
    expect(list.object).toBe('list');
    const ids = list.data.map((m) => m.id);
    expect(ids).toEqual(expect.arrayContaining(['gpt-4o', 'claude-sonnet-4-5', 'gemini-2.5-flash', 'mistral-large-latest']));
    expect(ids).toEqual(expect.arrayContaining(['groq/llama-3.3-70b-versatile', 'groq/openai/gpt-oss-120b', 'deepseek/deepseek-chat']));
    for (const entry of list.data) {
      expect(entry).toEqual({ id: expect.any(String), object: 'model', created: 0, owned_by: expect.any(String), description: expect.any(String) });
    }
  });
});
