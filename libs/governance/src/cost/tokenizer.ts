import { hash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { EncodeOptions } from 'gpt-tokenizer/cjs/GptEncoding';
import { FALLBACK_CHARS_PER_TOKEN } from '../data/limits';
import { readRanks } from './bpe-ranks';

/**
 * Which tokenizer counts a model's input (stage 2):
 * - provider A's current models (gpt-4o, gpt-4.1, gpt-4.5, gpt-5, o-series, gpt-oss) use
 *   `o200k_base`; older gpt-4 / gpt-3.5 and the text-embedding models use `cl100k_base`. Exact.
 * - every other family (claude, gemini, mistral, llama, ...) has no public tokenizer here; its
 *   count is approximated as the larger of the o200k count and one token per 4 characters.
 *   o200k alone undercounts those vendors on English prose (their vocabularies are smaller);
 *   characters/4 alone undercounts CJK text and code. The larger of both errs on the high side,
 *   which is the safe side for budgets.
 * Encoders load lazily on first use (about half a second each) and stay cached for the process;
 * call `warmUpTokenizers()` at boot to move that cost off the first request. It loads o200k only
 * (current models, and the approximation of every other vendor): cl100k costs some 30 MB of memory
 * and is loaded by the first request for a legacy gpt-4 / gpt-3.5 / text-embedding model.
 */

export type TokenizerEncoding = 'o200k_base' | 'cl100k_base';

export interface TokenizerChoice {
  encoding: TokenizerEncoding;
  /** false: the model's vendor tokenizer differs and the count is an approximation. */
  exact: boolean;
}

interface Encoder {
  countTokens(input: string, options?: EncodeOptions): number;
  setMergeCacheSize(size: number): void;
}

/** The parts of gpt-tokenizer's byte-pair core (`default.bytePairEncodingCoreProcessor`) the lean count uses. */
interface BytePairCore {
  tokenSplitRegex: RegExp;
  bytePairStringRankEncoder: Map<string, number>;
  bytePairEncode(piece: string): number[];
}

interface LoadedEncoder {
  library: Encoder;
  /** Counts a text like `library.countTokens(text, PLAIN_TEXT)`; null if the library's core has another shape. */
  lean: ((text: string, budget: MergeBudget) => number) | null;
}

/**
 * Byte-pair merging (a piece of text that is not one token of the vocabulary) is the slow part of
 * a count: about 1 µs per character here, and the library's merge is quadratic in the piece's
 * length, so a body of one 3 MB word kept a gateway busy for hours. So a piece longer than
 * MERGE_SLICE_CHARS is merged in slices of that length (a merge cannot cross a slice boundary:
 * about a token more per slice, if any), and one count (a request: `countInputTokens` shares its
 * budget across the body's texts) merges at most MERGE_BUDGET_CHARS characters, some 30-40 ms.
 * Beyond that, a piece counts the tokens per character of the pieces merged so far. Ordinary text
 * stays exact: most of its words are single tokens, and the rest merge in a few hundred characters
 * per kilobyte.
 */
export const MERGE_SLICE_CHARS = 1_024;
export const MERGE_BUDGET_CHARS = 32_768;

/** What one count may still spend on byte-pair merges, and what it merged so far. */
export class MergeBudget {
  remainingChars = MERGE_BUDGET_CHARS;
  mergedChars = 0;
  mergedTokens = 0;
}

/**
 * Entries of each encoder's merge cache (words already split into tokens). The library keeps 100,000,
 * which grows to tens of megabytes on varied traffic; the most frequent words fit in far fewer.
 */
const MERGE_CACHE_SIZE = 10_000;

const O200K_PREFIXES = ['gpt-4o', 'chatgpt-4o', 'gpt-4.1', 'gpt-4.5', 'gpt-5', 'o1', 'o3', 'o4', 'gpt-oss', 'codex-'];
const CL100K_PREFIXES = ['gpt-4', 'gpt-3.5', 'text-embedding-', 'davinci-002', 'babbage-002'];

/** User text may contain special-token strings such as `<|endoftext|>`: count them as plain text. */
const PLAIN_TEXT: EncodeOptions = { disallowedSpecial: new Set<string>() };

const encoders = new Map<TokenizerEncoding, LoadedEncoder>();

function isBytePairCore(value: unknown): value is BytePairCore {
  const core = value as Partial<BytePairCore> | null | undefined;
  return (
    core?.tokenSplitRegex instanceof RegExp &&
    core.bytePairStringRankEncoder instanceof Map &&
    typeof core.bytePairEncode === 'function'
  );
}

/**
 * The library's own count walks the text with `matchAll` and destructures every match: about 150
 * bytes of garbage per word, some 130 KB for a 4 KB prompt, which made the young-generation
 * collections that set the chain's p99. This walks the same split pattern with a sticky copy and
 * `test` (no match objects), then asks the library's byte-pair core for each piece, exactly as
 * `countNative` does: the counts are the library's (the tokenizer spec compares both on varied
 * text). The split pattern matches at every position of any text; if it ever does not, the text is
 * counted by the library instead.
 */
function leanCounter(core: BytePairCore, library: Encoder): (text: string, budget: MergeBudget) => number {
  const split = new RegExp(core.tokenSplitRegex.source, `${core.tokenSplitRegex.flags.replace(/[gy]/g, '')}y`);
  const ranks = core.bytePairStringRankEncoder;
  /**
   * Tokens of a piece that is not one token: merged slice by slice while the budget lasts (see
   * MERGE_BUDGET_CHARS), then estimated, as a fraction (the text's total is rounded up once).
   */
  const merged = (piece: string, budget: MergeBudget): number => {
    let tokens = 0;
    let start = 0;
    while (start < piece.length && budget.remainingChars > 0) {
      let end = Math.min(piece.length, start + MERGE_SLICE_CHARS);
      // Not between the two halves of a surrogate pair.
      if (end < piece.length && isLowSurrogate(piece.charCodeAt(end)) && isHighSurrogate(piece.charCodeAt(end - 1))) end -= 1;
      const slice = piece.slice(start, end);
      const sliceTokens = core.bytePairEncode(slice).length;
      tokens += sliceTokens;
      budget.remainingChars -= slice.length;
      budget.mergedChars += slice.length;
      budget.mergedTokens += sliceTokens;
      start = end;
    }
    if (start < piece.length) tokens += (piece.length - start) * (budget.mergedChars > 0 ? budget.mergedTokens / budget.mergedChars : 1);
    return tokens;
  };
  return (text, budget) => {
    let count = 0;
    let at = 0;
    while (at < text.length) {
      split.lastIndex = at;
      if (!split.test(text) || split.lastIndex === at) return library.countTokens(text, PLAIN_TEXT);
      const piece = text.slice(at, split.lastIndex);
      count += ranks.get(piece) !== undefined ? 1 : merged(piece, budget);
      at = split.lastIndex;
    }
    return Math.ceil(count);
  };
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

type LibraryEncoder = Encoder & { bytePairEncodingCoreProcessor?: unknown };

/**
 * The library's encoder, built from ranks read by `readRanks` (some 16 MB less memory than
 * requiring the ranks module), or, if they cannot be read so, the library's own encoding module.
 */
function openLibrary(encoding: TokenizerEncoding): LibraryEncoder {
  // Resolved at run time, as the bundle's own `require` of the library would be (a bundler would
  // otherwise try to resolve `require.resolve` itself).
  const ranks = readRanks(createRequire(__filename).resolve(`gpt-tokenizer/cjs/bpeRanks/${encoding}`));
  if (ranks) {
    const { GptEncoding } = require('gpt-tokenizer/cjs/GptEncoding') as typeof import('gpt-tokenizer/cjs/GptEncoding');
    return GptEncoding.getEncodingApi(encoding, () => ranks) as unknown as LibraryEncoder;
  }
  const module = (
    encoding === 'o200k_base' ? require('gpt-tokenizer/cjs/encoding/o200k_base') : require('gpt-tokenizer/cjs/encoding/cl100k_base')
  ) as { default: LibraryEncoder };
  return module.default;
}

function load(encoding: TokenizerEncoding): LoadedEncoder {
  let encoder = encoders.get(encoding);
  if (!encoder) {
    // Loaded on demand: the BPE tables are large, and most importers of this library never count tokens.
    const library = openLibrary(encoding);
    library.setMergeCacheSize(MERGE_CACHE_SIZE);
    const core = library.bytePairEncodingCoreProcessor;
    encoder = { library, lean: isBytePairCore(core) ? leanCounter(core, library) : null };
    encoders.set(encoding, encoder);
  }
  return encoder;
}

/** Tokens of a text with the library (as plain text: special-token strings count as text). */
export function libraryCount(encoding: TokenizerEncoding, text: string): number {
  return load(encoding).library.countTokens(text, PLAIN_TEXT);
}

/** Whether counts go through the lean path (false: the library's core changed shape; counts stay right, only slower). */
export function leanCountAvailable(encoding: TokenizerEncoding): boolean {
  return load(encoding).lean !== null;
}

/**
 * Tokens of a text, counted without the library's per-word garbage when its core allows, with at
 * most the budget's characters merged (a fresh budget per call unless the caller shares one).
 */
export function leanCount(encoding: TokenizerEncoding, text: string, budget = new MergeBudget()): number {
  const { lean } = load(encoding);
  return lean ? lean(text, budget) : libraryCount(encoding, text);
}

/** Loads the encoder of current models now (for application start); legacy cl100k stays lazy. */
export function warmUpTokenizers(): void {
  leanCount('o200k_base', 'warm up');
}

export function tokenizerFor(model: string): TokenizerChoice {
  let id = model.trim().toLowerCase();
  id = id.slice(id.lastIndexOf('/') + 1);
  if (id.startsWith('ft:')) id = id.slice(3);
  if (O200K_PREFIXES.some((prefix) => id.startsWith(prefix))) return { encoding: 'o200k_base', exact: true };
  if (CL100K_PREFIXES.some((prefix) => id.startsWith(prefix))) return { encoding: 'cl100k_base', exact: true };
  return { encoding: 'o200k_base', exact: false };
}

/** The fallback estimate: one token per 4 characters, rounded up. */
export function approximateTokens(text: string): number {
  return Math.ceil(text.length / FALLBACK_CHARS_PER_TOKEN);
}

/**
 * Counts of long texts seen lately, per encoding. A conversation resends its whole history on every
 * turn and many requests share one system prompt: the same message text is counted again and again.
 * Texts under 256 characters are cheap to count and not kept. A text is remembered by its SHA-1
 * (about 3 µs for 4 KB, where counting costs some 100 µs), not by itself: the cache holds no request
 * text, so its 20,000 entries take about 2 MB whatever the traffic, and keeping one does not make
 * the next young-generation collection copy kilobytes of prompt. Oldest entries go first.
 */
const COUNT_CACHE_MIN_CHARS = 256;
const COUNT_CACHE_ENTRIES = 20_000;
const countCache = new Map<string, number>();

function cachedCount(encoding: TokenizerEncoding, text: string, budget: MergeBudget): number {
  if (text.length < COUNT_CACHE_MIN_CHARS) return leanCount(encoding, text, budget);
  const digest = hash('sha1', text, 'base64');
  const key = encoding === 'o200k_base' ? digest : `c${digest}`;
  const hit = countCache.get(key);
  if (hit !== undefined) {
    countCache.delete(key); // most recently used last
    countCache.set(key, hit);
    return hit;
  }
  const counted = leanCount(encoding, text, budget);
  countCache.set(key, counted);
  if (countCache.size > COUNT_CACHE_ENTRIES) countCache.delete(countCache.keys().next().value as string);
  return counted;
}

/**
 * Tokens of one text with the chosen encoding; falls back to characters/4 if the tokenizer fails.
 * `budget`: the merge budget of the whole request, when the text is one of several.
 */
export function countTextTokens(text: string, choice: TokenizerChoice, budget = new MergeBudget()): number {
  if (text.length === 0) return 0;
  const approx = approximateTokens(text);
  let counted: number;
  try {
    counted = cachedCount(choice.encoding, text, budget);
  } catch {
    return approx;
  }
  return choice.exact ? counted : Math.max(counted, approx);
}
