import type { EncryptedValue } from '../crypto/secret-cipher';
import type { OrgId } from '../shared/tenancy';
import type { DiscoveredModelRepository } from './discovered-model.repository';
import type { ProviderTargetEntity, ProviderTargetKind } from './provider-target.entity';
import type { ProviderTargetRepository } from './provider-target.repository';

/**
 * An organization's provider target as the proxy registers it. Structurally a proxy
 * `DynamicProviderTarget` (`providerRegistry.withTargets(routes)`), plus what the proxy needs for the
 * upstream key and sealed headers: the target's encrypted key and credential headers (decrypt with
 * SECRET_CIPHER and the org id).
 */
export interface OrgProviderTargetRoute {
  /** The routing id (`provider_id`): `provider_id/model` on the generic endpoint. */
  id: string;
  targetId: string;
  displayName: string;
  /** Format-A base URL (ends where `/chat/completions` is appended). */
  baseUrl: string;
  kind: ProviderTargetKind;
  /** The headers stored in clear (in a document the start-up pass has not sealed yet, credential ones too). */
  headers: Record<string, string>;
  /** Credential headers of a target configured before they were refused, sealed (`openTargetHeaders`). */
  sealedHeaders: Record<string, EncryptedValue>;
  /** False when the target stores no key: a self-hosted server that needs none. */
  requiresKey: boolean;
  apiKey: EncryptedValue | null;
  /** Models configured by hand, then the discovered ones (each once). */
  models: { id: string; description: string }[];
}

function trimSlashes(url: string): string {
  return url.replace(/\/+$/, '');
}

/** The server root of an Ollama target (`http://host:11434`, without a trailing `/v1`). */
export function ollamaRoot(baseUrl: string): string {
  return trimSlashes(baseUrl).replace(/\/v1$/, '');
}

/**
 * The format-A base URL of a target: Ollama serves it at `{root}/v1`; an OpenAI-compatible
 * `base_url` is the SDK base URL as given, except a bare host, which gets the standard `/v1`.
 */
export function targetApiBase(target: Pick<ProviderTargetEntity, 'base_url' | 'kind'>): string {
  if (target.kind === 'ollama') return `${ollamaRoot(target.base_url)}/v1`;
  const base = trimSlashes(target.base_url);
  try {
    const path = new URL(base).pathname;
    return path === '' || path === '/' ? `${base}/v1` : base;
  } catch {
    return base;
  }
}

/**
 * Where discovery asks for the model list, in order: Ollama's `/api/tags`; for OpenAI-compatible
 * servers `{api base}/models` (`/v1/models`), then `/models` one level up when the base ends in `/v1`.
 */
export function targetDiscoveryUrls(target: Pick<ProviderTargetEntity, 'base_url' | 'kind'>): string[] {
  if (target.kind === 'ollama') return [`${ollamaRoot(target.base_url)}/api/tags`];
  const base = targetApiBase(target);
  const urls = [`${base}/models`];
  if (/\/v1$/.test(base)) urls.push(`${base.replace(/\/v1$/, '')}/models`);
  return urls;
}

/**
 * The organization's enabled provider targets with their models, for the proxy's registry and
 * `GET /v1/models`. Cache it per organization and drop the entry on the InvalidationBus topic
 * `provider-target` (id = organization id), which the admin API publishes on every change.
 */
export async function loadOrgProviderTargets(
  repositories: { providerTargets: Pick<ProviderTargetRepository, 'listEnabled'>; discoveredModels: Pick<DiscoveredModelRepository, 'listByTarget'> },
  orgId: OrgId,
): Promise<OrgProviderTargetRoute[]> {
  const targets = await repositories.providerTargets.listEnabled(orgId);
  return Promise.all(
    targets.map(async (target) => {
      const discovered = await repositories.discoveredModels.listByTarget(orgId, target._id);
      const models = new Map<string, { id: string; description: string }>();
      for (const id of target.models) models.set(id, { id, description: `${target.name} model (configured)` });
      for (const model of discovered) {
        if (!models.has(model.model_id)) models.set(model.model_id, { id: model.model_id, description: `${target.name} model (discovered)` });
      }
      return {
        id: target.provider_id,
        targetId: target._id,
        displayName: target.name,
        baseUrl: targetApiBase(target),
        kind: target.kind ?? 'openai_compatible',
        headers: { ...target.headers },
        sealedHeaders: { ...(target.sealed_headers ?? {}) },
        requiresKey: target.api_key !== null,
        apiKey: target.api_key,
        models: [...models.values()],
      };
    }),
  );
}
