import { MODEL_PRICES, PriceTable } from '@svc/governance';
import { detectProvider, ProviderDefinition, providerRegistry, ProviderRegistry } from '../providers';

/** The `provider` label of every organization's own provider target: never its id or name. */
export const TARGET_PROVIDER_LABEL = 'target';
/** The `provider` and `model` labels of a request that ended before a provider was chosen. */
export const UNKNOWN_LABEL = 'unknown';
/** A `model`, `status` or `reason` outside the known set. */
export const OTHER_LABEL = 'other';

/** Governance reasons are error codes (`rate_limit`); the cap only guards against a code that is not. */
const MAX_REASONS = 64;
const REASON = /^[a-z][a-z0-9_]{0,63}$/;

/** `'100'` to `'599'`, made once, so a request's status label is an array read. */
const STATUS_LABELS: readonly string[] = Array.from({ length: 600 }, (_, status) => String(status));

/**
 * Label values of /metrics. /metrics is public and its series live as long as the process, so a
 * value never comes from the client or a tenant unchecked: `provider` is a built-in provider's id,
 * `target` for any organization's provider target (their ids and names are theirs), or `unknown`;
 * `model` is a model id that the registry or the price table knows for that built-in provider,
 * else `other`. Everything is computed here once; a request costs two Map/Set lookups.
 */
export class MetricLabels {
  /** Built-in provider id → the model ids labelled as themselves. */
  private readonly models = new Map<string, ReadonlySet<string>>();
  private readonly reasons = new Set<string>();

  constructor(registry: ProviderRegistry = providerRegistry, prices: PriceTable = MODEL_PRICES) {
    const builtins = registry.list().filter((provider) => !provider.dynamic);
    const models = new Map<string, Set<string>>(builtins.map((provider) => [provider.id, new Set(provider.models.map((model) => model.id))]));
    for (const key of Object.keys(prices)) {
      // `ollama/` prices a whole route, not a model.
      if (key.endsWith('/')) continue;
      // A key of a detected family (`gpt-`, `claude-`) is that provider's; the others (`grok-4`,
      // `llama-3.3-70b-versatile`) are hosted by several, so every provider may label them.
      const family = detectProvider(key, registry);
      for (const [id, set] of models) if (!family || family.id === id) set.add(key);
    }
    for (const [id, set] of models) this.models.set(id, set);
  }

  /** A routed request's provider: its id when built in, `target` for an organization's target. */
  provider(provider: ProviderDefinition | undefined): string {
    if (!provider) return UNKNOWN_LABEL;
    return provider.dynamic ? TARGET_PROVIDER_LABEL : this.providerId(provider.id);
  }

  /** A provider id (a breaker's): itself when built in; anything else is an organization's target. */
  providerId(id: string): string {
    return this.models.has(id) ? id : TARGET_PROVIDER_LABEL;
  }

  /** `model` under the provider label `provider` (from `provider` or `providerId`). */
  model(provider: string, model: string | undefined): string {
    if (model === undefined || provider === UNKNOWN_LABEL) return UNKNOWN_LABEL;
    return this.models.get(provider)?.has(model) ? model : OTHER_LABEL;
  }

  status(status: number): string {
    return (Number.isInteger(status) && status >= 100 && STATUS_LABELS[status]) || OTHER_LABEL;
  }

  reason(reason: string): string {
    if (this.reasons.has(reason)) return reason;
    if (this.reasons.size >= MAX_REASONS || !REASON.test(reason)) return OTHER_LABEL;
    this.reasons.add(reason);
    return reason;
  }

  /** At most this many `provider` × `model` pairs can appear: the bound of the per-request series. */
  get modelPairs(): number {
    // Each built-in's models plus `other` and `unknown`; `target` with both; `unknown` with `unknown`.
    let pairs = 3;
    for (const set of this.models.values()) pairs += set.size + 2;
    return pairs;
  }
}
