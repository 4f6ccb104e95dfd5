import { GatewayError, invalidRequest, notFound } from '@svc/platform';
import { providerRegistry, ProviderRegistry } from './registry';
import { ProviderDefinition } from './types';

/** Where the generic endpoint sends a model no family prefix recognizes. */
export const FALLBACK_PROVIDER_ID = 'openai';

/**
 * The provider whose auto-detection prefix the model name starts with (case-insensitive; the
 * longest matching prefix wins), or undefined. Only the families of DECISIONS.md's table detect.
 */
export function detectProvider(model: string, registry: ProviderRegistry = providerRegistry): ProviderDefinition | undefined {
  const name = model.toLowerCase();
  let best: ProviderDefinition | undefined;
  let bestLength = 0;
  for (const provider of registry.list()) {
    for (const prefix of provider.modelPrefixes) {
      if (prefix.length > bestLength && name.startsWith(prefix.toLowerCase())) {
        best = provider;
        bestLength = prefix.length;
      }
    }
  }
  return best;
}

export interface ExplicitModel {
  provider: ProviderDefinition;
  /** The model name after the `provider/` prefix. */
  model: string;
}

/**
 * `groq/llama-3.3-70b` → groq + `llama-3.3-70b`, when the segment before the first `/` is a
 * registry id or alias. Other slashed names (`meta-llama/llama-3`) are model ids, not routes: undefined.
 */
export function parseExplicitModel(model: string, registry: ProviderRegistry = providerRegistry): ExplicitModel | undefined {
  const slash = model.indexOf('/');
  if (slash <= 0 || slash === model.length - 1) return undefined;
  const provider = registry.get(model.slice(0, slash));
  return provider ? { provider, model: model.slice(slash + 1) } : undefined;
}

export interface RouteInput {
  /** The `{provider}` of a provider-scoped route (`/v1/groq/chat/completions`); absent on the generic endpoint. */
  endpointProvider?: string;
  model: string;
  /** Alias name → target model (built-in plus the organization's), resolved once before anything else. */
  aliases?: ReadonlyMap<string, string>;
  /** Defaults to the built-in registry; pass `providerRegistry.withTargets(...)` for organization targets. */
  registry?: ProviderRegistry;
}

/** How the provider was chosen. */
export type RouteSource = 'endpoint' | 'explicit' | 'detected' | 'fallback';

export interface Route {
  provider: ProviderDefinition;
  /** The model name to send upstream (alias resolved, `provider/` prefix stripped unless the provider's own route keeps it: `ownModelNamespace`). */
  upstreamModel: string;
  /** The model name the client sent. */
  requestedModel: string;
  /** The alias that applied, if any. */
  alias?: string;
  source: RouteSource;
}

/**
 * Chooses the upstream provider and model: aliases first, then an explicit `provider/model`
 * prefix, then auto-detection; the generic endpoint falls back to openai. A model that belongs to
 * another provider than the endpoint (or the explicit prefix) is a 400 `provider_mismatch`.
 */
export function resolveRoute(input: RouteInput): Route {
  const registry = input.registry ?? providerRegistry;
  const requestedModel = input.model;
  if (typeof requestedModel !== 'string' || requestedModel.trim() === '') {
    throw invalidRequest('`model` is required and must be a non-empty string', 'model');
  }
  const aliasTarget = input.aliases?.get(requestedModel);
  const model = aliasTarget ?? requestedModel;
  const alias = aliasTarget === undefined ? undefined : requestedModel;
  const route = (provider: ProviderDefinition, upstreamModel: string, source: RouteSource): Route => ({
    provider,
    upstreamModel,
    requestedModel,
    source,
    ...(alias === undefined ? {} : { alias }),
  });

  if (input.endpointProvider !== undefined) {
    const endpoint = registry.get(input.endpointProvider);
    if (!endpoint) throw notFound(`Provider '${input.endpointProvider}'`, 'provider');
    return route(endpoint, checkModelFits(endpoint, model, requestedModel, registry, true), 'endpoint');
  }

  const explicit = parseExplicitModel(model, registry);
  if (explicit) {
    return route(explicit.provider, checkModelFits(explicit.provider, model, requestedModel, registry), 'explicit');
  }
  const detected = detectProvider(model, registry);
  if (detected) return route(detected, model, 'detected');
  const fallback = registry.get(FALLBACK_PROVIDER_ID);
  if (!fallback) throw new Error(`The registry has no '${FALLBACK_PROVIDER_ID}' provider to fall back to`);
  return route(fallback, model, 'fallback');
}

/**
 * The model name to send to `provider`, or a `provider_mismatch` when the name belongs elsewhere.
 * `model` may carry the provider's own prefix (stripped, except on the own route of a provider
 * whose ids live under its name: `ownModelNamespace`) or, for providers that host third-party
 * models, another namespace (kept: `openai/gpt-oss-120b` is a Groq model id).
 */
function checkModelFits(
  provider: ProviderDefinition,
  model: string,
  requestedModel: string,
  registry: ProviderRegistry,
  ownRoute = false,
): string {
  let upstreamModel = model;
  const explicit = parseExplicitModel(model, registry);
  if (explicit && explicit.provider.id === provider.id) {
    if (!(ownRoute && provider.ownModelNamespace)) upstreamModel = explicit.model;
  } else if (explicit && provider.modelScope === 'own') {
    throw providerMismatch(requestedModel, explicit.provider, provider);
  }
  if (provider.modelScope === 'any') return upstreamModel;
  const family = detectProvider(upstreamModel, registry);
  if (family && family.id !== provider.id) throw providerMismatch(requestedModel, family, provider);
  return upstreamModel;
}

/** 400 `provider_mismatch`: the model belongs to `owner` but the request targets `target`. */
export function providerMismatch(model: string, owner: ProviderDefinition, target: ProviderDefinition): GatewayError {
  return new GatewayError(400, {
    message: `Model '${model}' belongs to provider '${owner.id}' and cannot be sent to provider '${target.id}'`,
    type: 'invalid_request_error',
    code: 'provider_mismatch',
    param: 'model',
    remediation:
      `Send it to /v1/${owner.id} or to the generic endpoint (which routes by model name), ` +
      `or use a '${target.id}' model.`,
  });
}
