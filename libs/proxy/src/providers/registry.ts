import { BUILTIN_PROVIDERS } from './catalog';
import { DynamicProviderTarget, ProviderDefinition, ProviderModel } from './types';

/** Ids and aliases: lower-case letters, digits, `-`, `_`, `.`; never `/` (it separates `provider/model`). */
const PROVIDER_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;

export function isValidProviderId(id: string): boolean {
  return PROVIDER_NAME.test(id);
}

/**
 * Providers by id and alias. The built-in registry is `providerRegistry`; an organization's
 * provider targets are layered on top per request with `withTargets` (the built-ins are not copied).
 */
export class ProviderRegistry {
  private readonly byName = new Map<string, ProviderDefinition>();
  private readonly own: readonly ProviderDefinition[];

  constructor(entries: readonly ProviderDefinition[], private readonly parent?: ProviderRegistry) {
    this.own = entries;
    for (const entry of entries) {
      for (const name of [entry.id, ...entry.aliases]) {
        if (!isValidProviderId(name)) throw new Error(`Invalid provider id or alias '${name}'`);
        if (this.byName.has(name) || parent?.get(name)) throw new Error(`Provider id or alias '${name}' is already registered`);
        this.byName.set(name, entry);
      }
    }
  }

  /** The provider with this id or alias (case-insensitive), or undefined. */
  get(idOrAlias: string): ProviderDefinition | undefined {
    const name = idOrAlias.toLowerCase();
    return this.byName.get(name) ?? this.parent?.get(name);
  }

  has(idOrAlias: string): boolean {
    return this.get(idOrAlias) !== undefined;
  }

  /** Every provider, built-ins first, in registration order. */
  list(): ProviderDefinition[] {
    return [...(this.parent?.list() ?? []), ...this.own];
  }

  /** A registry that also knows these organization provider targets (D providers). */
  withTargets(targets: readonly DynamicProviderTarget[]): ProviderRegistry {
    if (!targets.length) return this;
    return new ProviderRegistry(targets.map(dynamicProvider), this);
  }
}

/** The built-in providers. */
export const providerRegistry = new ProviderRegistry(BUILTIN_PROVIDERS);

/** Turns an organization provider target into a D registry entry. */
export function dynamicProvider(target: DynamicProviderTarget): ProviderDefinition {
  const id = target.id.toLowerCase();
  if (!isValidProviderId(id)) throw new Error(`Invalid provider target id '${target.id}'`);
  if (!/^https?:\/\//.test(target.baseUrl)) throw new Error(`Provider target '${target.id}' needs an http(s) base URL`);
  const models: ProviderModel[] = (target.models ?? []).map((m) =>
    typeof m === 'string' ? { id: m, description: `${target.displayName ?? target.id} model (organization provider target)` } : m,
  );
  return {
    id,
    label: 'D',
    displayName: target.displayName ?? target.id,
    format: 'openai',
    baseUrl: trimSlashes(target.baseUrl),
    auth: target.auth ?? 'bearer',
    headers: { ...(target.headers ?? {}) },
    forwardHeaders: [],
    modelPrefixes: [],
    aliases: [],
    // An organization's own server names its models as it likes.
    modelScope: 'any',
    streamUsage: 'inject',
    requiresKey: target.requiresKey ?? true,
    embeddings: target.embeddings ?? true,
    models,
    dynamic: true,
  };
}

/**
 * The upstream base URL: the `<ID>_BASE_URL` override from config (`AppConfig.providerBaseUrls`,
 * keyed by lower-case id) or the registry default, without a trailing slash. Organization targets
 * carry their own URL and are not overridden by the deployment.
 */
export function resolveBaseUrl(
  provider: ProviderDefinition,
  providerBaseUrls: Readonly<Record<string, string>> = {},
): string {
  const override = provider.dynamic ? undefined : providerBaseUrls[provider.id];
  return trimSlashes(override ?? provider.baseUrl);
}

function trimSlashes(url: string): string {
  return url.replace(/\/+$/, '');
}

/**
 * First path segments of the gateway's own routes under `/v1`, the proxy's and the gateway admin's
 * (`/v1/admin/api-keys`, `/v1/admin/webhooks`, served beside the proxy by `npm start`). The D
 * catch-all (`/v1/{provider}/{path}`) would otherwise take `GET /v1/chat/completions` for provider
 * `chat`, or `DELETE /v1/admin/webhooks` for provider `admin`, so no provider (built-in or an
 * organization's target) may have one of these ids, and the catch-all answers below them itself.
 */
export const GATEWAY_ROUTE_SEGMENTS: ReadonlySet<string> = new Set(['chat', 'embeddings', 'messages', 'models', 'health', 'providers', 'approvals', 'admin']);
