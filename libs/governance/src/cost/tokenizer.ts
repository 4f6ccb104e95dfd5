import { hash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { EncodeOptions } from 'gpt-tokenizer/cjs/GptEncoding';
import { FALLBACK_CHARS_PER_TOKEN } from '../data/limits';
import { readRanks } from './bpe-ranks';
import { PackedRanks, mergedTokenCount, utf8Into } from './packed-ranks';

/**
 * Which tokenizer counts a model's input (stage 2):
 * - provider A's current models (gpt-4o, gpt-4.1, gpt-4.5, gpt-5, o-series, gpt-oss) use
 *   `o200k_base`; older gpt-4 / gpt-3.5 and the text-embedding models use `cl100k_base`. Exact.
 * - every other family (claude, gemini, mistral, llama, ...) has no public tokenizer here; its
 *   count is approximated as the larger of the o200k count and one token per 4 characters.
 *   o200k alone undercounts those vendors on English prose (their vocabularies are smaller);
 *   characters/4 alone undercounts CJK text and code. The larger of both errs on the high side,
 *   which is the safe side for budgets.
 * An encoding's ranks load on first use (a few hundred milliseconds) and stay, packed (see
 * packed-ranks.ts), for the process; call `warmUpTokenizers()` at boot to move that cost off the
 * first request. It loads o200k only (current models, and the approximation of every other vendor):
 * cl100k is loaded by the first request for a legacy gpt-4 / gpt-3.5 / text-embedding model.
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

/**
 * Byte-pair merging (a piece of text that is not one token of the vocabulary) is the slow part of
 * a count: about 1 µs per character here, and the library's merge is quadratic in the piece's
 * length, so a body of one 3 MB word kept a gateway busy for hours. So a piece longer than
 * MERGE_SLICE_CHARS is merged in slices of that length (a merge cannot cross a slice boundary:
 * about a token more per slice, if any), and one count (a request: `countInput` shares its
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
 * Entries of the cache of merged words (their token counts). The library keeps 100,000 words with
 * their tokens, which grows to tens of megabytes on varied traffic; the most frequent words fit in
 * far fewer. Words longer than MERGE_CACHE_MAX_CHARS are not kept.
 */
const MERGE_CACHE_SIZE = 10_000;
const MERGE_CACHE_MAX_CHARS = 64;

const O200K_PREFIXES = ['gpt-4o', 'chatgpt-4o', 'gpt-4.1', 'gpt-4.5', 'gpt-5', 'o1', 'o3', 'o4', 'gpt-oss', 'codex-'];
const CL100K_PREFIXES = ['gpt-4', 'gpt-3.5', 'text-embedding-', 'davinci-002', 'babbage-002'];

/** User text may contain special-token strings such as `<|endoftext|>`: count them as plain text. */
const PLAIN_TEXT: EncodeOptions = { disallowedSpecial: new Set<string>() };

/** Counts a text like `library.countTokens(text, PLAIN_TEXT)`, merging at most what the budget allows. */
type LeanCounter = (text: string, budget: MergeBudget) => number;

/** Per encoding: its lean counter, or null if the ranks could not be packed (the library counts then). */
const leanCounters = new Map<TokenizerEncoding, LeanCounter | null>();
const libraries = new Map<TokenizerEncoding, Encoder>();

/** The split pattern of an encoding as gpt-tokenizer defines it; null if the library no longer exports it. */
function splitPattern(encoding: TokenizerEncoding): RegExp | null {
  const constants = require('gpt-tokenizer/cjs/encodingParams/constants') as Record<string, unknown>;
  const pattern = constants[encoding === 'o200k_base' ? 'O200K_TOKEN_SPLIT_REGEX' : 'CL100K_TOKEN_SPLIT_REGEX'];
  return pattern instanceof RegExp ? pattern : null;
}

/** The library's byte-pair ranks of an encoding, read as data (see bpe-ranks.ts); null if its file has another shape. */
function libraryRanks(encoding: TokenizerEncoding): (string | number[])[] | null {
  // Resolved at run time, as the bundle's own `require` of the library would be (a bundler would
  // otherwise try to resolve `require.resolve` itself).
  return readRanks(createRequire(__filename).resolve(`gpt-tokenizer/cjs/bpeRanks/${encoding}`));
}

/**
 * The library's own count walks the text with `matchAll`, destructures every match and looks each
 * piece up in a Map of 200,000 strings. This walks the same split pattern with a sticky copy and
 * `test` (no match objects, no piece strings), writes each piece as UTF-8 into one scratch buffer and
 * looks it up in the packed ranks; a piece that is no token is merged by the library's algorithm over
 * the same table. The counts are the library's (the tokenizer spec compares both on varied text). The
 * split pattern matches at every position of any text; if it ever does not, the library counts.
 */
function leanCounter(encoding: TokenizerEncoding, ranks: PackedRanks, pattern: RegExp): LeanCounter {
  const split = new RegExp(pattern.source, `${pattern.flags.replace(/[gy]/g, '')}y`);
  // UTF-8 of one slice (3 bytes per code unit at most) and the merge's scratch arrays.
  const capacity = 3 * Math.max(MERGE_SLICE_CHARS, ranks.maxTokenBytes) + 3;
  const run = new Uint8Array(capacity);
  const starts = new Int32Array(capacity + 1);
  const pairRanks = new Int32Array(capacity + 1);
  const mergeCache = new Map<string, number>();
  const mergeSlice = (text: string, start: number, end: number): number => {
    const cacheable = end - start <= MERGE_CACHE_MAX_CHARS;
    const key = cacheable ? text.slice(start, end) : '';
    const cached = cacheable ? mergeCache.get(key) : undefined;
    if (cached !== undefined) return cached;
    const tokens = mergedTokenCount(ranks, run, utf8Into(text, start, end, run), starts, pairRanks);
    if (cacheable) {
      if (mergeCache.size >= MERGE_CACHE_SIZE) mergeCache.delete(mergeCache.keys().next().value as string);
      mergeCache.set(key, tokens);
    }
    return tokens;
  };
  /**
   * Tokens of a piece that is not one token: merged slice by slice while the budget lasts (see
   * MERGE_BUDGET_CHARS), then estimated, as a fraction (the text's total is rounded up once).
   */
  const merged = (text: string, from: number, to: number, budget: MergeBudget): number => {
    let tokens = 0;
    let start = from;
    while (start < to && budget.remainingChars > 0) {
      let end = Math.min(to, start + MERGE_SLICE_CHARS);
      // Not between the two halves of a surrogate pair.
      if (end < to && isLowSurrogate(text.charCodeAt(end)) && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
      const sliceTokens = mergeSlice(text, start, end);
      tokens += sliceTokens;
      budget.remainingChars -= end - start;
      budget.mergedChars += end - start;
      budget.mergedTokens += sliceTokens;
      start = end;
    }
    if (start < to) tokens += (to - start) * (budget.mergedChars > 0 ? budget.mergedTokens / budget.mergedChars : 1);
    return tokens;
  };
  return (text, budget) => {
    let count = 0;
    let at = 0;
    while (at < text.length) {
      split.lastIndex = at;
      if (!split.test(text) || split.lastIndex === at) return library(encoding).countTokens(text, PLAIN_TEXT);
      const end = split.lastIndex;
      // A piece of more code units than the longest token has bytes is never one token.
      const whole = end - at <= ranks.maxTokenBytes && ranks.rankOf(run, 0, utf8Into(text, at, end, run)) !== -1;
      count += whole ? 1 : merged(text, at, end, budget);
      at = end;
    }
    return Math.ceil(count);
  };
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/**
 * The library's encoder (built on first use: the gateway counts with the packed ranks and needs it
 * only if those cannot be read), from ranks read as data, or else the library's own encoding module.
 */
function library(encoding: TokenizerEncoding): Encoder {
  let encoder = libraries.get(encoding);
  if (!encoder) {
    const ranks = libraryRanks(encoding);
    if (ranks) {
      const { GptEncoding } = require('gpt-tokenizer/cjs/GptEncoding') as typeof import('gpt-tokenizer/cjs/GptEncoding');
      encoder = GptEncoding.getEncodingApi(encoding, () => ranks) as unknown as Encoder;
    } else {
      encoder = (
        (encoding === 'o200k_base' ? require('gpt-tokenizer/cjs/encoding/o200k_base') : require('gpt-tokenizer/cjs/encoding/cl100k_base')) as {
          default: Encoder;
        }
      ).default;
    }
    encoder.setMergeCacheSize(MERGE_CACHE_SIZE);
    libraries.set(encoding, encoder);
  }
  return encoder;
}

function lean(encoding: TokenizerEncoding): LeanCounter | null {
  let counter = leanCounters.get(encoding);
  if (counter === undefined) {
    // Loaded on demand: the ranks take a few hundred milliseconds to read, and most importers of
    // this library never count tokens.
    const ranks = libraryRanks(encoding);
    const pattern = splitPattern(encoding);
    counter = ranks && pattern ? leanCounter(encoding, PackedRanks.from(ranks), pattern) : null;
    leanCounters.set(encoding, counter);
  }
  return counter;
}

/** Tokens of a text with the library (as plain text: special-token strings count as text). */
export function libraryCount(encoding: TokenizerEncoding, text: string): number {
  return library(encoding).countTokens(text, PLAIN_TEXT);
}

/** Whether counts go through the lean path (false: the library's files changed shape; counts stay right, only slower). */
export function leanCountAvailable(encoding: TokenizerEncoding): boolean {
  return lean(encoding) !== null;
}

/**
 * Tokens of a text, counted from the packed ranks when they could be read, with at most the budget's
 * characters merged (a fresh budget per call unless the caller shares one).
 */
export function leanCount(encoding: TokenizerEncoding, text: string, budget = new MergeBudget()): number {
  const counter = lean(encoding);
  return counter ? counter(text, budget) : libraryCount(encoding, text);
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
