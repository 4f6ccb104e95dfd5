import { endianness } from 'node:os';
/**
 * The text the safety scanners and the classifier read: NFKC (full-width and stylised letters
 * become ASCII), invisible characters removed (zero-width, soft hyphen, bidi controls, Unicode
 * tag characters), and every run of whitespace collapsed to one space, or one newline when the
 * run holds a line break. Case is kept (rules match case-insensitively; encoded payloads need
 * case). One linear pass; text already in that form is returned as is. Finding offsets refer to
 * this text.
 */

function isSpace(code: number): boolean {
  return (
    code === 32 ||
    (code >= 9 && code <= 13) ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000
  );
}

function isLineBreak(code: number): boolean {
  return code === 10 || code === 11 || code === 12 || code === 13 || code === 0x2028 || code === 0x2029;
}

/** Zero-width characters, soft hyphen, bidi controls and word joiners. */
export function isInvisible(code: number): boolean {
  return (
    code === 0xad ||
    (code >= 0x200b && code <= 0x200f) ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2060 && code <= 0x2064) ||
    (code >= 0x2066 && code <= 0x2069) ||
    code === 0xfeff
  );
}

/** A Unicode tag character U+E0000-E007F starts at `i` (surrogate pair \uDB40 \uDC00-\uDC7F). */
function isTagAt(text: string, i: number): boolean {
  if (text.charCodeAt(i) !== 0xdb40) return false;
  const low = text.charCodeAt(i + 1);
  return low >= 0xdc00 && low <= 0xdc7f;
}

/** Whether `text` is already normalized apart from NFKC (the common case: nothing to rewrite). */
function isCanonical(text: string): boolean {
  let previousSpace = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 32 || code === 10) {
      if (previousSpace) return false;
      previousSpace = true;
    } else if (isSpace(code) || isInvisible(code) || (code === 0xdb40 && isTagAt(text, i))) {
      return false;
    } else {
      previousSpace = false;
    }
  }
  return true;
}

const CHUNK = 8192;

export function collapseWhitespace(text: string): string {
  if (isCanonical(text)) return text;
  const out = new Uint16Array(text.length);
  let length = 0;
  let i = 0;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (isInvisible(code)) {
      i++;
    } else if (isTagAt(text, i)) {
      i += 2;
    } else if (isSpace(code)) {
      let newline = false;
      while (i < text.length) {
        const next = text.charCodeAt(i);
        if (isSpace(next)) {
          if (isLineBreak(next)) newline = true;
          i++;
        } else if (isInvisible(next)) i++;
        else if (isTagAt(text, i)) i += 2;
        else break;
      }
      out[length++] = newline ? 10 : 32;
    } else {
      out[length++] = code;
      i++;
    }
  }
  return fromCodeUnits(out, length);
}

const LITTLE_ENDIAN = endianness() === 'LE';

/**
 * The string of the first `length` UTF-16 code units: a raw two-byte copy (lone surrogates kept),
 * about 100× faster than `String.fromCharCode(...units)` on a 4 KB prompt.
 */
function fromCodeUnits(units: Uint16Array, length: number): string {
  if (LITTLE_ENDIAN) return Buffer.from(units.buffer, units.byteOffset, length * 2).toString('utf16le');
  const parts: string[] = [];
  for (let start = 0; start < length; start += CHUNK) parts.push(String.fromCharCode(...units.subarray(start, Math.min(start + CHUNK, length))));
  return parts.join('');
}

export function normalizeForScan(text: string): string {
  return collapseWhitespace(text.normalize('NFKC'));
}

const cache = new WeakMap<object, string>();

/**
 * `normalizeForScan` of an input object's text, computed once per object, so stages 4.5, 4.6 and
 * 4.7 share it when they are given the same objects (do not change `text` in between).
 */
export function normalizedTextOf(input: { text: string }): string {
  let normalized = cache.get(input);
  if (normalized === undefined) {
    normalized = normalizeForScan(input.text);
    cache.set(input, normalized);
  }
  return normalized;
}
