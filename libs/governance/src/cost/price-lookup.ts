import { DEFAULT_MODEL_PRICE, LongContextPrice, MODEL_PRICES, ModelPrice, PriceTable, SERVER_TOOL_FEES } from './prices';

export interface PriceOptions {
  /** Price table to use instead of the built-in one. */
  table?: PriceTable;
  /** Price for models the table does not know (default DEFAULT_MODEL_PRICE). */
  defaultPrice?: ModelPrice;
}

export interface PriceMatch {
  price: ModelPrice;
  /** The table key that matched, or null when the default price applies. */
  key: string | null;
}

/**
 * Token counts of one request. `input_tokens` are billed at the full input rate,
 * `cached_input_tokens` at the cache-read rate and the cache writes at theirs: they are added, so a
 * provider-A caller passes `prompt_tokens - prompt_tokens_details.cached_tokens` as input and the
 * cached count separately (a B caller its `input_tokens` and each cache count).
 */
export interface TokenUsage {
  input_tokens?: number;
  output_tokens?: number;
  cached_input_tokens?: number;
  /** Prompt tokens written to a 5-minute cache (B's `cache_creation_input_tokens`). */
  cache_write_input_tokens?: number;
  /** Prompt tokens written to a 1-hour cache (B's `cache_creation.ephemeral_1h_input_tokens`). */
  cache_write_1h_input_tokens?: number;
  /** A's audio prompt tokens, at the audio input price (not part of `input_tokens`). */
  audio_input_tokens?: number;
  /** A's audio answer tokens, at the audio output price (not part of `output_tokens`). */
  audio_output_tokens?: number;
  /** Uses of provider-run tools by usage counter (B's `server_tool_use`), priced per use. */
  tool_uses?: Readonly<Record<string, number>>;
}

interface CompiledTable {
  exact: Map<string, ModelPrice>;
  /** Keys by descending length: the first prefix hit is the longest. */
  prefixes: string[];
}

const compiled = new WeakMap<PriceTable, CompiledTable>();

function compile(table: PriceTable): CompiledTable {
  let entry = compiled.get(table);
  if (!entry) {
    const exact = new Map<string, ModelPrice>();
    for (const [key, price] of Object.entries(table)) exact.set(key.toLowerCase(), price);
    entry = { exact, prefixes: [...exact.keys()].sort((a, b) => b.length - a.length) };
    compiled.set(table, entry);
  }
  return entry;
}

/** A date or revision of a snapshot: `20250929`, `2025-04-14`, `0613` / `2411` (MMDD, YYMM), `001`. */
const SNAPSHOT = String.raw`\d{8}|\d{4}-\d{2}-\d{2}|\d{3,4}`;
/** A date only `preview` / `exp` may carry: `05-20` (MM-DD) or `09-2025` (MM-YYYY). */
const TAG_DATE = String.raw`\d{2}-\d{2}|\d{2}-\d{4}`;
/** A Vertex snapshot after `@`: `@20250514`, `@001`, `@latest`, `@default`. */
const VERTEX = String.raw`@(?:\d{8}|\d{3}|latest|default)`;
/**
 * The rest of an id after a table key that keeps the key's model: one or more snapshot or alias
 * parts (`-20250929`, `-2025-04-14`, `-0125`, `-001`, `-latest`, `-preview`, `-preview-05-20`,
 * `-exp-1206`, `-v2`) and an optional Vertex `@...`, or the Vertex part alone. A version number
 * (`-7` of `claude-opus-4-7`, `.5` of `gpt-5.5`) or a variant (`-mini`, `-image`, `-audio`,
 * `-realtime`, `-search`, `-codex`) is not: such an id is another model. Each part is read one
 * way only (a part never continues into the next), so a long crafted name costs linear time.
 */
const SNAPSHOT_SUFFIX = new RegExp(String.raw`^(?:(?:-(?:${SNAPSHOT}|latest|v\d{1,2}|(?:preview|exp)(?:-(?:${TAG_DATE}))?))+(?:${VERTEX})?|${VERTEX})$`);

/** True when `rest` (what follows a table key in an id) names a snapshot or alias of the key's model. */
export function isSnapshotSuffix(rest: string): boolean {
  return rest.length <= MAX_SUFFIX && SNAPSHOT_SUFFIX.test(rest);
}

/** Longer than any real snapshot suffix (`-preview-2025-06-05@20250605` is 28). */
const MAX_SUFFIX = 48;

function lookup(table: CompiledTable, id: string): string | null {
  if (table.exact.has(id)) return id;
  // A fine-tuned model (`ft:<base>:<org>:<name>:<id>`) is priced by its base model.
  const base = id.startsWith('ft:') && id.indexOf(':', 3) > 0 ? id.slice(0, id.indexOf(':', 3)) : id;
  if (base !== id && table.exact.has(base)) return base;
  for (const key of table.prefixes) {
    if (!base.startsWith(key)) continue;
    // A route key (`ollama/`) prices everything below it.
    if (key.endsWith('/') || isSnapshotSuffix(base.slice(key.length))) return key;
  }
  return null;
}

/**
 * Price of a model: the table entry whose key is the id, or the longest key the id extends by a
 * snapshot or alias suffix only (`isSnapshotSuffix`: `claude-sonnet-4-5-20250929`,
 * `gpt-4o-2024-08-06`, `gemini-2.5-flash-preview-05-20`, `magistral-medium-latest`,
 * `claude-opus-4-1@20250805`); a route key (`ollama/`) prices every id below it. A newer version
 * or another variant of a listed model (`claude-opus-4-99`, `gpt-5.6`, `gpt-4o-mini-search-preview`)
 * matches no key and is priced at the default. An id with a route prefix
 * (`groq/llama-3.3-70b-versatile`, `models/gemini-1.5-pro`, `openrouter/anthropic/...`) that
 * matches nothing as a whole is looked up again without its leading segments, one at a time; a
 * Claude id written with dots (`claude-sonnet-4.5`, as aggregators name them) is also tried with
 * dashes, Anthropic's own form. Case is ignored.
 * The match is resolved once per id and table and remembered (bounded): the same id returns the
 * same frozen `PriceMatch`.
 */
export function matchPrice(model: string, options: PriceOptions = {}): PriceMatch {
  const table = compile(options.table ?? MODEL_PRICES);
  const id = model.trim().toLowerCase();
  // Every request prices its model twice (estimate, then real cost): remember the match per id.
  let matches = resolved.get(table);
  if (!matches) resolved.set(table, (matches = new Map()));
  let match = matches.get(id);
  if (match === undefined) {
    const key = findKey(table, id);
    match = key === null ? null : Object.freeze({ price: table.exact.get(key) as ModelPrice, key });
    if (matches.size >= PRICE_MATCH_CACHE_SIZE) matches.clear();
    matches.set(id, match);
  }
  return match ?? defaultMatch(options.defaultPrice ?? DEFAULT_MODEL_PRICE);
}

/** Model ids are few in practice; the cache is bounded anyway (ids come from requests). */
export const PRICE_MATCH_CACHE_SIZE = 10_000;
/** The resolved match per id, per table; `null` for an id the table does not price. */
const resolved = new WeakMap<CompiledTable, Map<string, PriceMatch | null>>();
const defaultMatches = new WeakMap<ModelPrice, PriceMatch>();

/** The match of a model priced at `price`, the default: one frozen object per default price. */
function defaultMatch(price: ModelPrice): PriceMatch {
  let match = defaultMatches.get(price);
  if (!match) defaultMatches.set(price, (match = Object.freeze({ price, key: null })));
  return match;
}

function findKey(table: CompiledTable, id: string): string | null {
  let key = lookupClaude(table, id);
  for (let slash = id.indexOf('/'); key === null && slash >= 0; slash = id.indexOf('/', slash + 1)) {
    key = lookupClaude(table, id.slice(slash + 1));
  }
  return key;
}

/** `lookup`, and for a `claude-` id with dotted versions (`claude-opus-4.5`) its dashed form too. */
function lookupClaude(table: CompiledTable, id: string): string | null {
  const key = lookup(table, id);
  if (key !== null || !id.startsWith('claude-') || !id.includes('.')) return key;
  return lookup(table, id.replace(/(\d)\.(\d)/g, '$1-$2'));
}

export function priceFor(model: string, options: PriceOptions = {}): ModelPrice {
  return matchPrice(model, options).price;
}

function tokens(value: number | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

/** The model's long-context tier when a prompt of `promptTokens` is above its threshold; undefined otherwise (or without a tier). */
export function longContextTier(price: ModelPrice, promptTokens: number): LongContextPrice | undefined {
  const tier = price.long_context;
  return tier !== undefined && promptTokens > tier.above_input_tokens ? tier : undefined;
}

/** Cost in USD at full floating-point precision (stored and summed as is; `roundUsd` only where it is shown). */
export function costOf(model: string, usage: TokenUsage, options: PriceOptions = {}): number {
  return costAtPrice(priceFor(model, options), usage);
}

/**
 * `costOf` at a price already looked up. A model with a long-context tier whose prompt (every input
 * token of `usage`: `promptTokensOf`) is above the tier's threshold pays the tier's prices for all
 * of its tokens; any other request, and a model without a tier, pays `price`.
 */
export function costAtPrice(price: ModelPrice, usage: TokenUsage): number {
  const rates = longContextTier(price, promptTokensOf(usage))?.price ?? price;
  const cachedRate = rates.cached_input ?? rates.input;
  const writeRate = rates.cache_write ?? rates.input;
  const tokenCost =
    (tokens(usage.input_tokens) * rates.input +
      tokens(usage.cached_input_tokens) * cachedRate +
      tokens(usage.cache_write_input_tokens) * writeRate +
      tokens(usage.cache_write_1h_input_tokens) * (rates.cache_write_1h ?? writeRate) +
      tokens(usage.audio_input_tokens) * (rates.audio_input ?? rates.input) +
      tokens(usage.output_tokens) * rates.output +
      tokens(usage.audio_output_tokens) * (rates.audio_output ?? rates.output)) /
    1_000_000;
  return usage.tool_uses ? tokenCost + toolFees(price, usage.tool_uses) : tokenCost;
}

/**
 * The prompt's tokens: input, cache reads, both cache writes and audio input (each counted once:
 * `TokenUsage`'s parts are disjoint). A long-context tier's threshold is measured on this, as B (input
 * plus cache reads and writes), A (`prompt_tokens`) and C (`promptTokenCount`, cached included) bill.
 */
export function promptTokensOf(usage: TokenUsage): number {
  return (
    tokens(usage.input_tokens) +
    tokens(usage.cached_input_tokens) +
    tokens(usage.cache_write_input_tokens) +
    tokens(usage.cache_write_1h_input_tokens) +
    tokens(usage.audio_input_tokens)
  );
}

/** The per-use fees of provider-run tools (a counter without a fee costs nothing beyond its tokens). */
function toolFees(price: ModelPrice, uses: Readonly<Record<string, number>>): number {
  const fees = price.tool_fees ?? SERVER_TOOL_FEES;
  let total = 0;
  for (const counter of Object.keys(uses)) {
    const fee = Object.hasOwn(fees, counter) ? fees[counter] : 0;
    if (typeof fee === 'number' && fee > 0) total += tokens(uses[counter]) * fee;
  }
  return total;
}

/**
 * `DEFAULT_MODEL_PRICE` of the configuration (`input,output` or `input,output,cached_input`, USD per
 * 1M tokens) as price options; undefined or blank keeps the built-in default.
 */
export function defaultPriceOptions(value: string | undefined): PriceOptions {
  if (!value || value.trim() === '') return {};
  const [input, output, cached] = value.split(',').map((part) => Number(part.trim()));
  if (![input, output].every((n) => Number.isFinite(n) && n >= 0)) throw new Error(`Invalid default model price '${value}'`);
  return { defaultPrice: cached === undefined || !Number.isFinite(cached) ? { input, output } : { input, output, cached_input: cached } };
}
