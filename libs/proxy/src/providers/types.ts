/** SPEC.md "Provider table": A chat-completions, B messages, C translated, D format-A compatible. */
export type ProviderLabel = 'A' | 'B' | 'C' | 'D';

/** The wire format the upstream speaks. C (`gemini`) is translated to and from format A by the gateway. */
export type ProviderFormat = 'openai' | 'anthropic' | 'gemini';

/**
 * How the upstream credential is sent: `Authorization: Bearer <key>`, `x-api-key: <key>`,
 * or the `key` query parameter.
 */
export type ProviderAuthForm = 'bearer' | 'x-api-key' | 'query-key';

/**
 * Which model names a provider-scoped endpoint takes:
 * - `own`: the vendor serves only its own models. A model that auto-detects to another family,
 *   or that is prefixed with another provider's id (`groq/...`), is a `provider_mismatch`.
 * - `hosted`: the vendor hosts third-party open models under namespaced ids (`openai/gpt-oss-120b`,
 *   `meta-llama/...`). Slash-prefixed ids pass through unchanged; a model that auto-detects to
 *   another family (`gpt-4o`, `claude-...`) is a `provider_mismatch`.
 * - `any`: a self-hosted server names its models freely (ollama's `mistral-nemo`, a vLLM
 *   `--served-model-name`). Every model name is accepted.
 */
export type ModelScope = 'own' | 'hosted' | 'any';

/**
 * `inject`: the gateway adds `stream_options.include_usage: true` to streaming requests (SPEC.md).
 * `always`: the provider sends usage in the final chunk unasked and rejects unknown body fields,
 * so nothing is injected.
 */
export type StreamUsageMode = 'inject' | 'always';

/** A model listed by `GET /v1/models`. */
export interface ProviderModel {
  readonly id: string;
  readonly description: string;
}

/** One registry entry. Adding a provider is adding one of these; no code changes. */
export interface ProviderDefinition {
  /** Lower-case id: the `{provider}` path segment, the `provider/` model prefix, `<ID>_BASE_URL` / `<ID>_API_KEY`. */
  readonly id: string;
  readonly label: ProviderLabel;
  readonly displayName: string;
  readonly format: ProviderFormat;
  /**
   * Default upstream base URL, in the vendor SDK's sense: format-A/D bases end where
   * `/chat/completions` is appended (`https://api.openai.com/v1`); B and C are the host root.
   */
  readonly baseUrl: string;
  readonly auth: ProviderAuthForm;
  /** Fixed headers sent upstream on every request (they replace any client value). */
  readonly headers: Readonly<Record<string, string>>;
  /** Extra client headers this provider understands, forwarded on top of the format's allowlist. */
  readonly forwardHeaders: readonly string[];
  /** Model-name prefixes that auto-detect this provider on the generic endpoint (DECISIONS.md table). */
  readonly modelPrefixes: readonly string[];
  /** Other names accepted for this provider in paths and `provider/model` (`google` → `gemini`). */
  readonly aliases: readonly string[];
  readonly modelScope: ModelScope;
  /**
   * The vendor's own model ids may start with `<id>/` (OpenRouter's `openrouter/auto`): on this
   * provider's own routes (`/v1/openrouter/chat/completions`, its catch-all) the model goes upstream
   * exactly as sent, `<id>/` included. Absent or false, a leading `<id>/` is the gateway's routing
   * prefix and is stripped there as on the generic endpoint (which strips it for every provider).
   */
  readonly ownModelNamespace?: boolean;
  readonly streamUsage: StreamUsageMode;
  /** False for self-hosted servers that run without a key (ollama, vllm): no 401 when none resolves. */
  readonly requiresKey: boolean;
  /** Whether `POST /v1/embeddings` can be routed here (format-A `/embeddings`). */
  readonly embeddings: boolean;
  readonly models: readonly ProviderModel[];
  /** True for organization provider targets registered at runtime. */
  readonly dynamic?: boolean;
}

/**
 * An organization's own provider target (SPEC.md "Provider target"), registered at runtime as a
 * D provider: format A at `baseUrl` (which includes `/v1`, like the built-in D entries).
 */
export interface DynamicProviderTarget {
  readonly id: string;
  readonly baseUrl: string;
  /** Default `bearer`. */
  readonly auth?: ProviderAuthForm;
  readonly displayName?: string;
  /** Fixed headers sent upstream (for example a gateway in front of the target). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Default true: a target with no key configured anywhere is a 401 `missing_provider_key`. */
  readonly requiresKey?: boolean;
  /** Default true. */
  readonly embeddings?: boolean;
  /** Discovered model ids, listed by `GET /v1/models`. */
  readonly models?: readonly (string | ProviderModel)[];
}
