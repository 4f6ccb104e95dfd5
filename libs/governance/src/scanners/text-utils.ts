/**
 * Small linear-time helpers shared by the scanners. Every regular expression used with them has
 * bounded quantifiers and no nested quantifiers, so each start position costs a bounded amount
 * of work and a scan is linear in the text length.
 */

/*
 * Hot paths avoid global functions (Math.min, Number(), String.fromCharCode): inside Jest's
 * sandbox every call to a global of the outer realm costs hundreds of nanoseconds, which would
 * distort the timing tests by an order of magnitude. These helpers are plain module functions.
 */
export function minOf(a: number, b: number): number {
  return a < b ? a : b;
}

export function maxOf(a: number, b: number): number {
  return a > b ? a : b;
}

/** The number spelled by the ASCII digits text[from, to) (NaN if any is not a digit). */
export function digitsValue(text: string, from = 0, to = text.length): number {
  let value = 0;
  for (let i = from; i < to; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return NaN;
    value = value * 10 + digit;
  }
  return value;
}

/** Spans (start and end offsets) of the matches of a global (`g`) regex that `accept` keeps. */
export function matchSpans(re: RegExp, text: string, accept?: (match: RegExpExecArray) => boolean): { start: number; end: number }[] {
  const spans: { start: number; end: number }[] = [];
  re.lastIndex = 0;
  let match: RegExpExecArray | null;
  while ((match = re.exec(text)) !== null) {
    if (match[0].length === 0) re.lastIndex++;
    if (!accept || accept(match)) spans.push({ start: match.index, end: match.index + match[0].length });
  }
  return spans;
}

export function isDigitCode(code: number): boolean {
  return code >= 48 && code <= 57;
}

export function isLetterCode(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

export function isAlnumCode(code: number): boolean {
  return isDigitCode(code) || isLetterCode(code);
}

/** The code with ASCII upper-case letters folded to lower case (for case-insensitive comparisons without substrings). */
export function lowerCode(code: number): number {
  return code >= 65 && code <= 90 ? code + 32 : code;
}

/** Number of entries of a sorted list below `value` (binary search). */
export function countBelow(list: readonly number[], value: number): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (list[mid] < value) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * The next occurrence of a string or of a global regular expression in a text at or after a
 * position that never decreases between calls (the text length when there is none): each part of
 * the text is searched once, however many positions are asked about.
 */
export class NextOccurrence {
  private at = -1;

  constructor(
    private readonly text: string,
    private readonly needle: string | RegExp,
  ) {}

  from(position: number): number {
    if (this.at < position) this.at = this.search(position);
    return this.at;
  }

  private search(position: number): number {
    if (typeof this.needle === 'string') {
      const found = this.text.indexOf(this.needle, position);
      return found < 0 ? this.text.length : found;
    }
    this.needle.lastIndex = position;
    const match = this.needle.exec(this.text);
    return match === null ? this.text.length : match.index;
  }
}

/** Whether the character at `index` is an ASCII letter or digit (false outside the text). */
export function alnumAt(text: string, index: number): boolean {
  return index >= 0 && index < text.length && isAlnumCode(text.charCodeAt(index));
}

/** Runs of ASCII letters and digits in text[from, to), at most `max` of them, in order. */
export function tokensIn(text: string, from: number, to: number, max: number): string[] {
  const tokens: string[] = [];
  const end = minOf(to, text.length);
  let start = -1;
  for (let i = maxOf(from, 0); i <= end && tokens.length < max; i++) {
    const inToken = i < end && isAlnumCode(text.charCodeAt(i));
    if (inToken && start < 0) start = i;
    if (!inToken && start >= 0) {
      tokens.push(text.slice(start, i));
      start = -1;
    }
  }
  return tokens;
}

/** The last `max` tokens of text[from, to). */
export function lastTokensIn(text: string, from: number, to: number, max: number): string[] {
  const all = tokensIn(text, from, to, Number.MAX_SAFE_INTEGER);
  return all.slice(maxOf(all.length - max, 0));
}

/** Letters-and-digits shape of a secret: at least one digit and one letter, and a random-looking run. */
export function looksRandom(value: string, minRun: number): boolean {
  let digit = false;
  let letter = false;
  let run = 0;
  let longest = 0;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (isDigitCode(code)) digit = true;
    if (isLetterCode(code)) letter = true;
    run = isAlnumCode(code) ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  return digit && letter && longest >= minRun;
}

/**
 * Calls `visit(windowStart, windowEnd, keywordStart)` for each match of the global keyword regex, with the
 * window of `length` characters after the keyword. Keywords inside the previous window are
 * skipped, so the windows never overlap and the total work stays linear.
 */
export function forEachKeywordWindow(
  keyword: RegExp,
  text: string,
  length: number,
  visit: (windowStart: number, windowEnd: number, keywordStart: number) => void,
): void {
  keyword.lastIndex = 0;
  let match: RegExpExecArray | null;
  while ((match = keyword.exec(text)) !== null) {
    const start = match.index + match[0].length;
    const end = minOf(start + length, text.length);
    visit(start, end, match.index);
    keyword.lastIndex = maxOf(end, match.index + 1);
  }
}
