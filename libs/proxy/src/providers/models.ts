import { providerRegistry, ProviderRegistry } from './registry';
import { detectProvider } from './routing';
import { ProviderDefinition } from './types';

/** One entry of `GET /v1/models` (SPEC.md). */
export interface ModelListEntry {
  id: string;
  object: 'model';
  created: 0;
  owned_by: string;
  description: string;
}

export interface ModelList {
  object: 'list';
  data: ModelListEntry[];
}

/**
 * The id under which a listed model routes on the generic endpoint: the plain name when it
 * auto-detects to its provider (`gpt-4o`, `claude-...`), otherwise `provider/model` (`groq/llama-3.3-70b-versatile`).
 */
export function routableModelId(provider: ProviderDefinition, model: string, registry: ProviderRegistry = providerRegistry): string {
  return detectProvider(model, registry)?.id === provider.id ? model : `${provider.id}/${model}`;
}

/** The `GET /v1/models` body: every listed model of every provider in the registry. */
export function listModels(registry: ProviderRegistry = providerRegistry): ModelList {
  const data: ModelListEntry[] = [];
  for (const provider of registry.list()) {
    for (const model of provider.models) {
      data.push({
        id: routableModelId(provider, model.id, registry),
        object: 'model',
        created: 0,
        owned_by: provider.id,
        description: model.description,
      });
    }
  }
  return { object: 'list', data };
}
