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

/** Start of a run of at least 40 base64/hex characters (not inside a longer run). */
const BLOB_START = /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{40}/g;
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

function decodeBlob(blob: string): { text: string; encoding: 'base64' | 'hex' } | null {
  if (HEX_ONLY.test(blob) && blob.length % 2 === 0) {
    if (readableText(Buffer.from(blob.slice(0, PROBE_CHARS), 'hex')) !== null) {
      const text = readableText(Buffer.from(blob, 'hex'));
      if (text !== null) return { text, encoding: 'hex' };
    }
  }
  // Node's base64 decoder accepts the URL-safe alphabet too. A blob glued to a preceding word
  // may start off the 4-character grid: try each alignment.
  const core = blob.replace(/={1,2}$/, '');
  for (let shift = 0; shift < 4 && core.length - shift >= MIN_BLOB_CHARS; shift++) {
    if (readableText(Buffer.from(core.slice(shift, shift + PROBE_CHARS), 'base64')) === null) continue;
    const text = readableText(Buffer.from(core.slice(shift), 'base64'));
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

function isBlobChar(code: number): boolean {
  // letters, digits and + / _ -
  const alnum = (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
  return alnum || code === 43 || code === 47 || code === 95 || code === 45;
}

/** Encoded-payload findings in one normalized text. Long runs are decoded in aligned chunks of MAX_BLOB_CHARS. */
export function findEncoded(path: string, text: string, budget: DecodeBudget, depth = 1): SafetyFinding[] {
  const findings: SafetyFinding[] = [];
  if (text.length < MIN_BLOB_CHARS) return findings;
  const start = new RegExp(BLOB_START.source, 'g');
  let match: RegExpExecArray | null;
  while ((match = start.exec(text)) !== null && budget.remaining > 0) {
    let end = match.index + MIN_BLOB_CHARS;
    while (end < text.length && isBlobChar(text.charCodeAt(end))) end++;
    for (let chunk = match.index; end - chunk >= MIN_BLOB_CHARS; chunk += MAX_BLOB_CHARS) {
      let chunkEnd = minOf(chunk + MAX_BLOB_CHARS, end);
      if (chunkEnd === end) while (chunkEnd < text.length && chunkEnd - end < 2 && text[chunkEnd] === '=') chunkEnd++;
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
    start.lastIndex = end;
  }
  return findings;
}
