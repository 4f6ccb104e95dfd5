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

/**
 * Anything `collapseWhitespace` would rewrite: a space character other than a lone space or newline,
 * two spaces or newlines in a row, an invisible character, or a Unicode tag character. One regular
 * expression scan (about 2 ms per MB), so already-normal text (the common case) costs no JS loop.
 * Kept in step with `isSpace`, `isInvisible` and `isTagAt`.
 */
const NOT_CANONICAL =
  /[\t\v\f\r\u00a0\u00ad\u1680\u2000-\u200f\u2028-\u202f\u205f-\u2064\u2066-\u2069\u3000\ufeff]|[ \n][ \n]|\udb40[\udc00-\udc7f]/;

/** Whether `text` is already normalized apart from NFKC (the common case: nothing to rewrite). */
function isCanonical(text: string): boolean {
  return !NOT_CANONICAL.test(text);
}

const CHUNK = 8192;

export function collapseWhitespace(text: string): string {
  if (isCanonical(text)) return text;
  const out = new Uint16Array(text.length);
  let length = 0;
  let i = 0;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    // Printable ASCII (all but the space) is copied as is: the bulk of any text, tested first.
    if (code > 32 && code < 127) {
      out[length++] = code;
      i++;
    } else if (code === 32 || code === 10 || isSpace(code)) {
      let newline = false;
      while (i < text.length) {
        const next = text.charCodeAt(i);
        if (next === 32) i++;
        else if (next === 10) {
          newline = true;
          i++;
        } else if (next > 32 && next < 127) break;
        else if (isSpace(next)) {
          if (isLineBreak(next)) newline = true;
          i++;
        } else if (isInvisible(next)) i++;
        else if (next === 0xdb40 && isTagAt(text, i)) i += 2;
        else break;
      }
      out[length++] = newline ? 10 : 32;
    } else if (isInvisible(code)) {
      i++;
    } else if (code === 0xdb40 && isTagAt(text, i)) {
      i += 2;
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

/**
 * `normalizeForScan` of an input's text, computed once per input object and kept on it
 * (`normalized`), so stages 4.5, 4.6 and 4.7 share it when they are given the same objects (do not
 * change `text` in between). Kept on the object rather than in a WeakMap: a weak collection with
 * entries for every request's texts made every young-generation collection process them.
 */
export function normalizedTextOf(input: { text: string; normalized?: string }): string {
  let normalized = input.normalized;
  if (normalized === undefined) {
    normalized = normalizeForScan(input.text);
    input.normalized = normalized;
  }
  return normalized;
}
