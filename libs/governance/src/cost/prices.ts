/**
 * Model prices in USD per 1 million tokens: public list prices of the vendors at the time of
 * writing (standard tier, no batch discount).
 * `cached_input` is the cache-read price; absent means cached input costs the input price.
 * `cache_write` and `cache_write_1h` price prompt tokens written to the provider's cache (B: 5-minute
 * and 1-hour cache writes, above the input price); absent means the input price.
 * Keys are lower-case model ids; `priceFor` matches an exact id first and then the longest key
 * the id extends by a snapshot or alias suffix only (`isSnapshotSuffix` in price-lookup.ts), so
 * dated versions (`gpt-4o-2024-08-06`, `claude-sonnet-4-20250514`), `-latest`, `-preview-MM-DD`
 * and Vertex `@date` ids find their model, while a newer version (`claude-opus-4-99`, `gpt-5.6`)
 * or a variant (`-mini`, `-image`, `-audio`, `-codex`) does not: each needs its own entry, or it
 * is priced at DEFAULT_MODEL_PRICE. Give a dated version its own entry when its price differs
 * (`gpt-4o-2024-05-13`, `mistral-large-2512`), and so a `-latest` alias that names it
 * (`mistral-large-latest`), and an alias that is not a snapshot suffix (`claude-opus-4-0`) one too. A key may name the route it prices (`groq/openai/gpt-oss-120b`):
 * the whole `provider/model` id is tried first. Keys ending in `/` price whole routes (`ollama/`,
 * self-hosted: free).
 * `audio_input` and `audio_output` price A's audio tokens (`prompt_tokens_details.audio_tokens`,
 * `completion_tokens_details.audio_tokens`); absent means the text price.
 * `tool_fees` are USD per use of a provider-run tool, by the counter the provider's usage reports it
 * under; absent means SERVER_TOOL_FEES.
 * `long_context` is the price of a request whose prompt is longer than a threshold (see
 * `LongContextPrice`); absent means every request pays the prices above, however long.
 */

export interface ModelPrice {
  input: number;
  output: number;
  cached_input?: number;
  cache_write?: number;
  cache_write_1h?: number;
  audio_input?: number;
  audio_output?: number;
  tool_fees?: Readonly<Record<string, number>>;
  long_context?: Readonly<LongContextPrice>;
}

/**
 * A long-context tier, as the vendors bill it: a request whose prompt has more than
 * `above_input_tokens` tokens pays `price` for all of its tokens (input, cache reads and writes,
 * output), not only for those past the threshold. The prompt is every input token the request
 * sends: B's `input_tokens` + `cache_read_input_tokens` + `cache_creation_input_tokens`, A's
 * `prompt_tokens` and C's `promptTokenCount`, cached tokens included. `price` has no tier or tool
 * fees of its own (the model's tool fees apply).
 */
export interface LongContextPrice {
  above_input_tokens: number;
  price: Readonly<Omit<ModelPrice, 'long_context' | 'tool_fees'>>;
}

/**
 * USD per use of B's server tools, by their `usage.server_tool_use` counter: web search is $10 per
 * 1,000 searches; web fetch costs only the tokens of what it fetched. A counter not listed costs
 * nothing beyond tokens (code execution is billed by container time, which no usage reports).
 */
export const SERVER_TOOL_FEES: Readonly<Record<string, number>> = Object.freeze({ web_search_requests: 0.01, web_fetch_requests: 0 });

export type PriceTable = Readonly<Record<string, Readonly<ModelPrice>>>;

/** Price for a model the table does not know: priced like a mid-range frontier model, so budgets still bind. */
export const DEFAULT_MODEL_PRICE: Readonly<ModelPrice> = Object.freeze({ input: 3, output: 15, cached_input: 0.3 });

const p = (input: number, output: number, cached_input?: number): ModelPrice =>
  cached_input === undefined ? { input, output } : { input, output, cached_input };
/** B prices: input, 5-minute cache write, 1-hour cache write, cache read, output. */
const b = (input: number, cache_write: number, cache_write_1h: number, cached_input: number, output: number): ModelPrice => ({
  input,
  output,
  cached_input,
  cache_write,
  cache_write_1h,
});
/** `price` with a long-context tier: prompts above `above_input_tokens` pay `long` for every token. */
const tiered = (price: ModelPrice, above_input_tokens: number, long: ModelPrice): ModelPrice => ({ ...price, long_context: { above_input_tokens, price: long } });
/** A prices with audio tokens: text input, text output, audio input, audio output. */
const audio = (input: number, output: number, audio_input: number, audio_output: number): ModelPrice => ({ input, output, audio_input, audio_output });

/** Claude Opus 4 and 4.1; Sonnet 4 and 4.5 (with the 1M-context beta's tier above 200K prompt tokens). */
const OPUS_4 = b(15, 18.75, 30, 1.5, 75);
const SONNET_4 = tiered(b(3, 3.75, 6, 0.3, 15), 200_000, b(6, 7.5, 12, 0.6, 22.5));
/** Claude Opus 4.5 and later Opus 4.x: a third of Opus 4's prices. */
const OPUS_4_5 = b(5, 6.25, 10, 0.5, 25);

export const MODEL_PRICES: PriceTable = Object.freeze({
  // Provider A (openai): chat. Sources, read 2026-11-25:
  // https://developers.openai.com/api/docs/models/gpt-6.2-sol (GPT-6.2 Sol: $2 / cached $0.10 / $10;
  // above 272K input tokens input and cache rates double and output is 1.5x, for the whole request);
  // GPT-6 Astra, Sol and Luna are left out: only public trackers quoting OpenAI's pricing page gave
  // their figures, OpenAI's own pages for them not being in the copy searched, and the table takes
  // figures from the providers' own pages only. OpenAI's cache writes ($2.50 per 1M on Sol) are not priced: no
  // format-A usage field reports them. Not listed: GPT-6.2 Astra ($8 / $40; its cached price was not
  // seen), GPT-6.1 Sol (its long-context tier was not seen) and GPT-5.6 Sol / Terra / Luna (repriced
  // on 2026-07-30; only trackers give the current figures).
  'gpt-6.2-sol': tiered(p(2, 10, 0.1), 272_000, p(4, 15, 0.2)),
  'gpt-4o': p(2.5, 10, 1.25),
  'gpt-4o-2024-05-13': p(5, 15),
  'chatgpt-4o-latest': p(5, 15),
  'gpt-4o-mini': p(0.15, 0.6, 0.075),
  'gpt-4.1': p(2, 8, 0.5),
  'gpt-4.1-mini': p(0.4, 1.6, 0.1),
  'gpt-4.1-nano': p(0.1, 0.4, 0.025),
  'gpt-4.5-preview': p(75, 150, 37.5),
  'gpt-5': p(1.25, 10, 0.125),
  'gpt-5-mini': p(0.25, 2, 0.025),
  'gpt-5-nano': p(0.05, 0.4, 0.005),
  'gpt-5-pro': p(15, 120),
  'gpt-5-codex': p(1.25, 10, 0.125),
  'gpt-5.1': p(1.25, 10, 0.125),
  'gpt-5.1-codex-mini': p(0.25, 2),
  'gpt-5.2': p(1.75, 14, 0.175),
  'gpt-5.2-pro': p(21, 168),
  'gpt-5.2-codex': p(1.75, 14, 0.175),
  'gpt-5.3-codex': p(1.75, 14, 0.175),
  // GPT-5.4 and 5.4 pro (1.05M context): a prompt above 272K tokens pays 2x input and 1.5x output
  // for the whole request; mini and nano (400K context) have no tier.
  'gpt-5.4': tiered(p(2.5, 15, 0.25), 272_000, p(5, 22.5, 0.5)),
  'gpt-5.4-pro': tiered(p(30, 180), 272_000, p(60, 270)),
  'gpt-5.4-mini': p(0.75, 4.5, 0.075),
  'gpt-5.4-nano': p(0.2, 1.25, 0.02),
  // GPT-5.5: above 272K prompt tokens 2x input and cache reads, 1.5x output. The Pro model's
  // long-context prices are not published where they could be checked: its base prices only.
  'gpt-5.5': tiered(p(5, 30, 0.5), 272_000, p(10, 45, 1)),
  'gpt-5.5-pro': p(30, 180),
  'gpt-4-turbo': p(10, 30),
  'gpt-4-1106': p(10, 30),
  'gpt-4-0125': p(10, 30),
  'gpt-4-32k': p(60, 120),
  'gpt-4': p(30, 60),
  'gpt-3.5-turbo': p(0.5, 1.5),
  // Provider A: audio in and out through chat completions (audio tokens at their own price)
  'gpt-4o-audio-preview': audio(2.5, 10, 40, 80),
  'gpt-4o-mini-audio-preview': audio(0.15, 0.6, 10, 20),
  'gpt-audio': audio(2.5, 10, 32, 64),
  'gpt-audio-mini': audio(0.6, 2.4, 10, 20),
  // Provider A: reasoning series
  o1: p(15, 60, 7.5),
  'o1-mini': p(1.1, 4.4, 0.55),
  'o1-pro': p(150, 600),
  o3: p(2, 8, 0.5),
  'o3-mini': p(1.1, 4.4, 0.55),
  'o3-pro': p(20, 80),
  'o4-mini': p(1.1, 4.4, 0.275),
  // Provider A: fine-tuned models (`ft:<base>:<org>::<id>`)
  'ft:gpt-4o': p(3.75, 15, 1.875),
  'ft:gpt-4o-mini': p(0.3, 1.2, 0.15),
  'ft:gpt-4.1': p(3, 12, 0.75),
  'ft:gpt-4.1-mini': p(0.8, 3.2, 0.2),
  'ft:gpt-4.1-nano': p(0.2, 0.8, 0.05),
  'ft:gpt-3.5-turbo': p(3, 6),
  // Provider A: embeddings (input only)
  'text-embedding-3-small': p(0.02, 0),
  'text-embedding-3-large': p(0.13, 0),
  'text-embedding-ada-002': p(0.1, 0),

  // Provider B (anthropic): input, cache writes (5 minutes, 1 hour), cache read, output.
  // Sources, read 2026-11-25: https://platform.claude.com/docs/en/about-claude/pricing (Fable, Mythos,
  // Opus 5 to 4.5 rows), https://platform.claude.com/docs/zh-CN/models/opus-5-5/overview (Opus 5.5),
  // https://platform.claude.com/docs/zh-CN/models/sonnet-5/overview (Sonnet 5).
  // Not listed (priced at DEFAULT_MODEL_PRICE): Sonnet 5.5 (its cache read is $0.20 on Anthropic's
  // model page, $0.10 from 2026-10-07 on later trackers), Haiku 5.5 (prompt-length tiers whose cache
  // prices no Anthropic page seen gives) and Fable 5.2 (no cache prices seen).
  // Sonnet 4 and 4.5 with the 1M-context beta: a prompt above 200K tokens pays 2x input (and cache
  // prices) and 1.5x output for the whole request. The 4.6 and later models serve 1M at their
  // standard prices. `claude-opus-4-0` and `claude-sonnet-4-0` are Anthropic's aliases of Opus 4 and
  // Sonnet 4. The 5.x cache reads are not all a tenth of the input price (Fable 5.1: $0.25 on $10).
  'claude-fable-5-1': b(10, 12.5, 20, 0.25, 50),
  'claude-mythos-5-1': b(10, 12.5, 20, 0.25, 50),
  'claude-fable-5': b(10, 12.5, 20, 1, 50),
  'claude-mythos-5': b(10, 12.5, 20, 1, 50),
  'claude-opus-5-5': b(4, 5, 8, 0.2, 20),
  'claude-opus-5': b(5, 6.25, 10, 0.5, 25),
  'claude-sonnet-5': b(2, 2.5, 4, 0.2, 10),
  'claude-opus-4-8': OPUS_4_5,
  'claude-opus-4-7': OPUS_4_5,
  'claude-opus-4-6': OPUS_4_5,
  'claude-opus-4-5': OPUS_4_5,
  'claude-opus-4-1': OPUS_4,
  'claude-opus-4-0': OPUS_4,
  'claude-opus-4': OPUS_4,
  'claude-sonnet-4-6': b(3, 3.75, 6, 0.3, 15),
  'claude-sonnet-4-5': SONNET_4,
  'claude-sonnet-4-0': SONNET_4,
  'claude-sonnet-4': SONNET_4,
  'claude-haiku-4-5': b(1, 1.25, 2, 0.1, 5),
  'claude-3-7-sonnet': b(3, 3.75, 6, 0.3, 15),
  'claude-3-5-sonnet': b(3, 3.75, 6, 0.3, 15),
  'claude-3-5-haiku': b(0.8, 1, 1.6, 0.08, 4),
  'claude-3-opus': b(15, 18.75, 30, 1.5, 75),
  'claude-3-haiku': b(0.25, 0.3, 0.5, 0.03, 1.25),

  // Provider C (gemini): the Pro models charge more for a prompt above 200K tokens (cached ones
  // included), for the whole request. Source: https://ai.google.dev/gemini-api/docs/pricing as
  // transcribed verbatim on 2026-10-07 (github.com/api-evangelist/deepmind, plans/deepmind-plans-pricing.yml),
  // read 2026-11-25: 3.1 Pro, 2.5 Pro, 2.5 Flash (audio input $1.00 against $0.30 for text, image and
  // video) and 2.5 Flash-Lite agree with this table. Gemini 3.5 Flash, 3.5 Flash-Lite and 3.8 Flash
  // are not listed: no cache price was seen, and 3.8 Flash's price changes on 2027-01-01.
  // `audio_input` prices the uncached AUDIO part of `usageMetadata.promptTokensDetails`.
  'gemini-3.1-pro': tiered(p(2, 12, 0.2), 200_000, p(4, 18, 0.4)),
  'gemini-3-pro': tiered(p(2, 12, 0.2), 200_000, p(4, 18, 0.4)),
  'gemini-3-flash': p(0.5, 3, 0.05),
  'gemini-3.1-flash-lite': p(0.25, 1.5, 0.025),
  'gemini-2.5-pro': tiered(p(1.25, 10, 0.125), 200_000, p(2.5, 15, 0.25)),
  'gemini-2.5-flash': { ...p(0.3, 2.5, 0.03), audio_input: 1 },
  'gemini-2.5-flash-lite': p(0.1, 0.4, 0.01),
  'gemini-2.0-flash': p(0.1, 0.4, 0.025),
  'gemini-2.0-flash-lite': p(0.075, 0.3),
  // Gemini 1.5 (retired): its prices for prompts up to 128K tokens, without its tier
  'gemini-1.5-pro': p(1.25, 5, 0.3125),
  'gemini-1.5-flash': p(0.075, 0.3, 0.01875),
  'gemini-1.5-flash-8b': p(0.0375, 0.15, 0.01),
  'gemini-embedding-001': p(0.15, 0),

  // Provider D (mistral), from Mistral's model cards (docs.mistral.ai/models/<model>). A `-latest`
  // alias that names a newer version than the family's price has its own entry: `mistral-large-latest`
  // is Large 3 (mistral-large-3-25-12), `mistral-small-latest` Small 4 (mistral-small-4-0-26-03),
  // `ministral-8b-latest` / `ministral-3b-latest` Ministral 3 (ministral-3-8b-25-12, ministral-3-3b-25-12);
  // the older versions (Large 2407/2411, Small 2503/2506, Ministral 2410) keep the family's price.
  'mistral-large': p(2, 6),
  'mistral-large-2512': p(0.5, 1.5),
  'mistral-large-latest': p(0.5, 1.5),
  // `mistral-medium-latest` is Medium 3.1 (2508), at the family's price.
  'mistral-medium': p(0.4, 2),
  // Medium 3.5 (mistral-medium-3-5-26-04), whose API names are these two.
  'mistral-medium-3.5': p(1.5, 7.5),
  'mistral-medium-3': p(1.5, 7.5),
  // Large 4 (mistral-large-4-0, public preview) at its preview prices.
  'mistral-large-4': p(0.68, 2.09, 0.07),
  'mistral-large-4-0': p(0.68, 2.09, 0.07),
  'mistral-small': p(0.1, 0.3),
  'mistral-small-2603': p(0.15, 0.6),
  'mistral-small-latest': p(0.15, 0.6),
  'mistral-embed': p(0.1, 0),
  'codestral': p(0.3, 0.9),
  'ministral-8b': p(0.1, 0.1),
  'ministral-8b-2512': p(0.15, 0.15),
  'ministral-8b-latest': p(0.15, 0.15),
  'ministral-3b': p(0.04, 0.04),
  'ministral-3b-2512': p(0.1, 0.1),
  'ministral-3b-latest': p(0.1, 0.1),
  'pixtral-large': p(2, 6),
  'pixtral-12b': p(0.15, 0.15),
  'magistral-medium': p(2, 5),
  'magistral-small': p(0.5, 1.5),
  'open-mistral-nemo': p(0.15, 0.15),

  // Other format-A providers (D-style registry); ids as those providers name them
  'llama-3.3-70b-versatile': p(0.59, 0.79),
  'llama-3.1-8b-instant': p(0.05, 0.08),
  // gpt-oss-120b as each host prices it: looked up by `provider/model` first.
  'groq/openai/gpt-oss-120b': p(0.15, 0.6),
  'cerebras/gpt-oss-120b': p(0.35, 0.75),
  'deepseek-chat': p(0.28, 0.42, 0.028),
  'deepseek-reasoner': p(0.28, 0.42, 0.028),
  'grok-4': p(3, 15, 0.75),
  'grok-3-mini': p(0.3, 0.5, 0.075),
  'grok-3': p(3, 15, 0.75),
  sonar: p(1, 1),
  'sonar-pro': p(3, 15),
  'meta-llama/llama-3.3-70b-instruct-turbo': p(0.88, 0.88),
  // Self-hosted routes
  'ollama/': p(0, 0),
  'vllm/': p(0, 0),
});
