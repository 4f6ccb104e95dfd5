import { ProviderDefinition, ProviderModel } from './types';

/**
 * The built-in providers, as data (STYLE.md "Upstream adapters are declarative"). Adding a
 * format-A-compatible provider is one `compatible({...})` entry here; nothing else changes.
 * Base URLs are the vendors' public ones and are overridable with `<ID>_BASE_URL`.
 */

type CompatibleEntry = Pick<ProviderDefinition, 'id' | 'displayName' | 'baseUrl'> &
  Partial<Omit<ProviderDefinition, 'id' | 'displayName' | 'baseUrl' | 'models'>> & {
    models?: readonly (readonly [string, string])[];
  };

const models = (list: readonly (readonly [string, string])[]): ProviderModel[] =>
  list.map(([id, description]) => ({ id, description }));

/** A label-D entry: format A, bearer auth, hosted third-party models unless said otherwise. */
function compatible(entry: CompatibleEntry): ProviderDefinition {
  return {
    label: 'D',
    format: 'openai',
    auth: 'bearer',
    headers: {},
    forwardHeaders: [],
    modelPrefixes: [],
    aliases: [],
    modelScope: 'hosted',
    streamUsage: 'inject',
    requiresKey: true,
    embeddings: false,
    ...entry,
    models: models(entry.models ?? []),
  };
}

export const BUILTIN_PROVIDERS: readonly ProviderDefinition[] = [
  {
    id: 'openai',
    label: 'A',
    displayName: 'OpenAI',
    format: 'openai',
    baseUrl: 'https://api.openai.com/v1',
    auth: 'bearer',
    headers: {},
    forwardHeaders: ['openai-organization', 'openai-project', 'openai-beta'],
    modelPrefixes: ['gpt-', 'chatgpt-', 'o1', 'o3', 'o4', 'ft:gpt-', 'text-embedding-'],
    aliases: [],
    modelScope: 'own',
    streamUsage: 'inject',
    requiresKey: true,
    embeddings: true,
    models: models([
      ['gpt-4o', 'OpenAI GPT-4o: multimodal flagship chat model'],
      ['gpt-4o-mini', 'OpenAI GPT-4o mini: fast, low-cost chat model'],
      ['gpt-4.1', 'OpenAI GPT-4.1: long-context chat and coding model'],
      ['o4-mini', 'OpenAI o4-mini: small reasoning model'],
      ['text-embedding-3-small', 'OpenAI embeddings, 1536 dimensions'],
    ]),
  },
  {
    id: 'anthropic',
    label: 'B',
    displayName: 'Anthropic',
    format: 'anthropic',
    baseUrl: 'https://api.anthropic.com',
    auth: 'x-api-key',
    headers: { 'anthropic-version': '2023-06-01' },
    forwardHeaders: ['anthropic-beta'],
    modelPrefixes: ['claude-'],
    aliases: [],
    modelScope: 'own',
    streamUsage: 'inject',
    requiresKey: true,
    embeddings: false,
    models: models([
      ['claude-sonnet-4-5', 'Anthropic Claude Sonnet 4.5: balanced intelligence and speed'],
      ['claude-opus-4-1', 'Anthropic Claude Opus 4.1: most capable model'],
      ['claude-3-5-haiku-latest', 'Anthropic Claude 3.5 Haiku: fastest model'],
    ]),
  },
  {
    id: 'gemini',
    label: 'C',
    displayName: 'Google Gemini',
    format: 'gemini',
    baseUrl: 'https://generativelanguage.googleapis.com',
    auth: 'query-key',
    headers: {},
    forwardHeaders: [],
    modelPrefixes: ['gemini-'],
    aliases: ['google'],
    modelScope: 'own',
    streamUsage: 'inject',
    requiresKey: true,
    embeddings: false,
    models: models([
      ['gemini-2.5-pro', 'Google Gemini 2.5 Pro: reasoning model (translated from format A)'],
      ['gemini-2.5-flash', 'Google Gemini 2.5 Flash: fast multimodal model (translated from format A)'],
      ['gemini-2.0-flash', 'Google Gemini 2.0 Flash (translated from format A)'],
    ]),
  },
  compatible({
    id: 'mistral',
    displayName: 'Mistral AI',
    baseUrl: 'https://api.mistral.ai/v1',
    modelPrefixes: ['mistral-', 'codestral-', 'ministral-', 'pixtral-', 'magistral-', 'open-mistral-'],
    modelScope: 'own',
    // Mistral sends usage in the last chunk unasked and answers 422 to unknown body fields.
    streamUsage: 'always',
    embeddings: true,
    models: [
      ['mistral-large-latest', 'Mistral Large: flagship model'],
      ['mistral-small-latest', 'Mistral Small: efficient model'],
      ['codestral-latest', 'Codestral: code model'],
      ['mistral-embed', 'Mistral embeddings'],
    ],
  }),
  compatible({
    id: 'groq',
    displayName: 'Groq',
    baseUrl: 'https://api.groq.com/openai/v1',
    models: [
      ['llama-3.3-70b-versatile', 'Meta Llama 3.3 70B on Groq LPUs'],
      ['llama-3.1-8b-instant', 'Meta Llama 3.1 8B on Groq LPUs'],
      ['openai/gpt-oss-120b', 'OpenAI gpt-oss 120B open-weight model on Groq'],
    ],
  }),
  compatible({
    id: 'deepseek',
    displayName: 'DeepSeek',
    baseUrl: 'https://api.deepseek.com/v1',
    modelScope: 'own',
    models: [
      ['deepseek-chat', 'DeepSeek V3 chat model'],
      ['deepseek-reasoner', 'DeepSeek R1 reasoning model'],
    ],
  }),
  compatible({
    id: 'together',
    displayName: 'Together AI',
    baseUrl: 'https://api.together.xyz/v1',
    embeddings: true,
    models: [
      ['meta-llama/Llama-3.3-70B-Instruct-Turbo', 'Meta Llama 3.3 70B Instruct Turbo on Together'],
      ['deepseek-ai/DeepSeek-V3', 'DeepSeek V3 on Together'],
    ],
  }),
  compatible({
    id: 'fireworks',
    displayName: 'Fireworks AI',
    baseUrl: 'https://api.fireworks.ai/inference/v1',
    embeddings: true,
    models: [['accounts/fireworks/models/llama-v3p3-70b-instruct', 'Meta Llama 3.3 70B Instruct on Fireworks']],
  }),
  compatible({
    id: 'xai',
    displayName: 'xAI',
    baseUrl: 'https://api.x.ai/v1',
    modelScope: 'own',
    models: [
      ['grok-4', 'xAI Grok 4'],
      ['grok-3-mini', 'xAI Grok 3 mini'],
    ],
  }),
  compatible({
    id: 'perplexity',
    displayName: 'Perplexity',
    // Perplexity's OpenAI-compatible base has no /v1 segment.
    baseUrl: 'https://api.perplexity.ai',
    modelScope: 'own',
    // Perplexity reports usage in its stream without being asked.
    streamUsage: 'always',
    models: [
      ['sonar', 'Perplexity Sonar: search-grounded answers'],
      ['sonar-pro', 'Perplexity Sonar Pro'],
    ],
  }),
  compatible({
    id: 'cerebras',
    displayName: 'Cerebras',
    baseUrl: 'https://api.cerebras.ai/v1',
    models: [
      ['llama-3.3-70b', 'Meta Llama 3.3 70B on Cerebras'],
      ['gpt-oss-120b', 'OpenAI gpt-oss 120B on Cerebras'],
    ],
  }),
  compatible({
    id: 'deepinfra',
    displayName: 'DeepInfra',
    baseUrl: 'https://api.deepinfra.com/v1/openai',
    embeddings: true,
    models: [['meta-llama/Llama-3.3-70B-Instruct', 'Meta Llama 3.3 70B Instruct on DeepInfra']],
  }),
  compatible({
    id: 'openrouter',
    displayName: 'OpenRouter (aggregator)',
    baseUrl: 'https://openrouter.ai/api/v1',
    // OpenRouter's app attribution headers.
    forwardHeaders: ['http-referer', 'x-title'],
    // OpenRouter's own routers are `openrouter/auto` and the like: its route sends them as they are.
    ownModelNamespace: true,
    models: [
      ['openrouter/auto', 'OpenRouter auto router: picks a model per prompt'],
      ['meta-llama/llama-3.3-70b-instruct', 'Meta Llama 3.3 70B Instruct through OpenRouter'],
    ],
  }),
  compatible({
    id: 'nvidia',
    displayName: 'NVIDIA NIM',
    baseUrl: 'https://integrate.api.nvidia.com/v1',
    embeddings: true,
    models: [['meta/llama-3.3-70b-instruct', 'Meta Llama 3.3 70B Instruct on NVIDIA NIM']],
  }),
  compatible({
    id: 'sambanova',
    displayName: 'SambaNova',
    baseUrl: 'https://api.sambanova.ai/v1',
    models: [['Meta-Llama-3.3-70B-Instruct', 'Meta Llama 3.3 70B Instruct on SambaNova']],
  }),
  compatible({
    id: 'huggingface',
    displayName: 'Hugging Face Inference Providers',
    baseUrl: 'https://router.huggingface.co/v1',
    aliases: ['hf'],
    models: [['meta-llama/Llama-3.3-70B-Instruct', 'Meta Llama 3.3 70B Instruct through Hugging Face']],
  }),
  compatible({
    id: 'ollama',
    displayName: 'Ollama (self-hosted)',
    baseUrl: 'http://localhost:11434/v1',
    modelScope: 'any',
    requiresKey: false,
    embeddings: true,
    models: [['llama3.2', 'Meta Llama 3.2 on a local Ollama server']],
  }),
  compatible({
    id: 'vllm',
    displayName: 'vLLM (self-hosted)',
    baseUrl: 'http://localhost:8000/v1',
    modelScope: 'any',
    requiresKey: false,
    embeddings: true,
  }),
  compatible({
    id: 'lmstudio',
    displayName: 'LM Studio (self-hosted)',
    baseUrl: 'http://localhost:1234/v1',
    modelScope: 'any',
    requiresKey: false,
    embeddings: true,
  }),
];
