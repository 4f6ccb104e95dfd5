import { minOf } from '../text-utils';
import { normalizeForScan } from './normalize';
import { INJECTION_RULES, runPhraseRules } from './rules';
import { SafetyFinding } from './types';

/**
 * Encoded payloads of stage 4.6: runs of 40 or more base64 (standard or URL-safe) or hex
 * characters are decoded, a bounded amount per request, and when the result is readable text it
 * is scanned again with the injection rules (and searched for a further encoded layer, two levels
 * deep). A decoded injection is high; decoded text with instruction words is medium. Binary data
 * (images, hashes, keys) does not decode to readable text and is ignored.
 */

/** One blob is decoded in chunks of at most this many characters (a multiple of 4 keeps base64 aligned). */
export const MAX_BLOB_CHARS = 4096;
/** Encoded characters decoded per scan call, over all texts; the rest is not decoded. */
export const MAX_DECODE_CHARS = 262_144;
const MIN_BLOB_CHARS = 40;
const MAX_DEPTH = 2;

const HEX_ONLY = /^[0-9a-fA-F]{40,4096}$/;
const INSTRUCTION_WORDS =
  /\b(?:ignore|disregard|instructions?|system prompt|you must|you are now|from now on|override|exfiltrate|jailbreak)\b/i;

/** Shared decode allowance of one scan call. */
export class DecodeBudget {
  constructor(public remaining: number = MAX_DECODE_CHARS) {}

  take(chars: number): boolean {
    if (chars > this.remaining) return false;
    this.remaining -= chars;
    return true;
  }
}

/** Decoded bytes as text when at least 85 % of the characters are printable, else null. */
export function readableText(bytes: Buffer): string | null {
  if (bytes.length < 12) return null;
  const text = bytes.toString('utf8');
  let printable = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if ((code >= 32 && code !== 127 && code !== 0xfffd) || code === 9 || code === 10 || code === 13) printable++;
  }
  return printable / text.length >= 0.85 ? text : null;
}

/** Characters decoded first to judge an alignment: binary data is rejected without decoding a whole blob. */
const PROBE_CHARS = 64;
/** Where probes are decoded: 64 base64 characters are 48 bytes, 64 hex characters 32. */
const PROBE = Buffer.alloc(PROBE_CHARS);

/**
 * `readableText(decoded probe) !== null`, mostly without building a string: ASCII bytes are judged
 * exactly; bytes that become unprintable characters whatever their neighbours (control characters,
 * bytes that never start a UTF-8 sequence, continuation bytes after an ASCII byte) reject binary
 * data once they exceed 15 % of the bytes (there are never more characters than bytes). Anything
 * else gets `readableText` itself.
 */
function probeReadable(encoded: string, encoding: 'base64' | 'hex'): boolean {
  const length = PROBE.write(encoded, encoding);
  if (length < 12) return false;
  let unprintable = 0;
  let ascii = true;
  for (let i = 0; i < length; i++) {
    const byte = PROBE[i];
    if (byte < 0x80) {
      if ((byte < 32 && byte !== 9 && byte !== 10 && byte !== 13) || byte === 127) unprintable++;
    } else {
      ascii = false;
      if (byte === 0xc0 || byte === 0xc1 || byte >= 0xf5 || (byte < 0xc0 && (i === 0 || PROBE[i - 1] < 0x80))) unprintable++;
    }
  }
  if (ascii) return (length - unprintable) / length >= 0.85;
  if (unprintable * 20 > length * 3) return false;
  return readableText(PROBE.subarray(0, length)) !== null;
}

function decodeBlob(blob: string): { text: string; encoding: 'base64' | 'hex' } | null {
  if (HEX_ONLY.test(blob) && blob.length % 2 === 0) {
    if (probeReadable(blob.slice(0, PROBE_CHARS), 'hex')) {
      const text = readableText(Buffer.from(blob, 'hex'));
      if (text !== null) return { text, encoding: 'hex' };
    }
  }
  // Node's base64 decoder accepts the URL-safe alphabet too. A blob glued to a preceding word
  // may start off the 4-character grid: try each alignment.
  let coreEnd = blob.length;
  if (blob.charCodeAt(coreEnd - 1) === 61) coreEnd -= blob.charCodeAt(coreEnd - 2) === 61 ? 2 : 1;
  for (let shift = 0; shift < 4 && coreEnd - shift >= MIN_BLOB_CHARS; shift++) {
    if (!probeReadable(blob.slice(shift, minOf(shift + PROBE_CHARS, coreEnd)), 'base64')) continue;
    const text = readableText(Buffer.from(blob.slice(shift, coreEnd), 'base64'));
    if (text !== null) return { text, encoding: 'base64' };
  }
  return null;
}

interface DecodedVerdict {
  severity: 'high' | 'medium' | null;
  encoding: 'base64' | 'hex';
}

function judgeDecoded(text: string, encoding: 'base64' | 'hex', budget: DecodeBudget, depth: number): DecodedVerdict {
  const normalized = normalizeForScan(text);
  const inner = runPhraseRules(INJECTION_RULES, 'security_scan', '', normalized);
  if (inner.some((f) => f.severity === 'high')) return { severity: 'high', encoding };
  if (depth < MAX_DEPTH) {
    for (const nested of findEncoded('', normalized, budget, depth + 1)) {
      if (nested.severity === 'high') return { severity: 'high', encoding };
    }
  }
  if (inner.length > 0 || INSTRUCTION_WORDS.test(normalized)) return { severity: 'medium', encoding };
  return { severity: null, encoding };
}

/** Base64 (standard and URL-safe) and hex characters: letters, digits and + / _ - (by ASCII code). */
const BLOB_CHAR = new Uint8Array(128);
for (const char of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-') BLOB_CHAR[char.charCodeAt(0)] = 1;

function isBlobChar(code: number): boolean {
  return code < 128 && BLOB_CHAR[code] === 1;
}

/*
 * The character loops are small functions of their own: V8 optimizes them once and keeps them, where
 * a loop inside findEncoded would be recompiled (on-stack) whenever findEncoded's code is thrown away.
 */

/** Start of the first run of MIN_BLOB_CHARS or more blob characters at or after `from` (not inside a run), or -1. */
function nextBlob(text: string, from: number): number {
  let runStart = from;
  for (let i = from; i < text.length; i++) {
    if (!isBlobChar(text.charCodeAt(i))) runStart = i + 1;
    else if (i - runStart + 1 >= MIN_BLOB_CHARS) return runStart;
  }
  return -1;
}

function skipBlobChars(text: string, from: number): number {
  let i = from;
  while (i < text.length && isBlobChar(text.charCodeAt(i))) i++;
  return i;
}

/**
 * Encoded-payload findings in one normalized text. Runs of 40 or more blob characters (a JS loop:
 * about 3 ms per MB, where a regular expression with a look-behind costs 10-20) are decoded in
 * aligned chunks of MAX_BLOB_CHARS until the budget is spent.
 */
export function findEncoded(path: string, text: string, budget: DecodeBudget, depth = 1): SafetyFinding[] {
  const findings: SafetyFinding[] = [];
  const length = text.length;
  // Every chunk decoded is at least MIN_BLOB_CHARS long: below that the budget decodes nothing more.
  for (let start = nextBlob(text, 0); start >= 0 && budget.remaining >= MIN_BLOB_CHARS; ) {
    const end = skipBlobChars(text, start + MIN_BLOB_CHARS);
    for (let chunk = start; end - chunk >= MIN_BLOB_CHARS; chunk += MAX_BLOB_CHARS) {
      let chunkEnd = minOf(chunk + MAX_BLOB_CHARS, end);
      if (chunkEnd === end) while (chunkEnd < length && chunkEnd - end < 2 && text.charCodeAt(chunkEnd) === 61) chunkEnd++;
      if (!budget.take(chunkEnd - chunk)) break;
      const decoded = decodeBlob(text.slice(chunk, chunkEnd));
      if (decoded === null) continue;
      const verdict = judgeDecoded(decoded.text, decoded.encoding, budget, depth);
      if (verdict.severity === null) continue;
      findings.push({
        stage: 'security_scan',
        rule: `${verdict.encoding}_payload`,
        category: 'encoded_payload',
        severity: verdict.severity,
        path,
        start: chunk,
        end: chunkEnd,
        reclassifiable: false,
      });
    }
    start = nextBlob(text, end);
  }
  return findings;
}
