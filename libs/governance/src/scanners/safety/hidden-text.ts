import { isInvisible, normalizeForScan } from './normalize';
import { INJECTION_RULES, runPhraseRules } from './rules';
import { SafetyFinding } from './types';

/**
 * Hidden text of stage 4.6, read from the raw (not normalized) text: Unicode tag characters
 * (U+E0000-E007F, "ASCII smuggling": invisible, yet models read them) are decoded and scanned
 * with the injection rules; heavy use of zero-width characters is reported as obfuscation.
 * Hidden text has no position in the normalized text (normalization removes it): findings carry
 * offsets 0-0 and cannot be cleared by 4.7.
 */

const MIN_TAG_CHARS = 4;
/** Tag characters decoded per text; more hidden text than this is reported without reading the rest. */
const MAX_TAG_CHARS = 65_536;
const ANY_INVISIBLE = /[\u00AD\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/;
const MIN_ZERO_WIDTH = 16;
/** The 128 ASCII characters by code, to decode tag characters without a call per character. */
const ASCII = Array.from({ length: 128 }, (_, code) => String.fromCharCode(code));

function hidden(rule: string, severity: 'high' | 'medium', path: string): SafetyFinding {
  return { stage: 'security_scan', rule, category: 'hidden_text', severity, path, start: 0, end: 0, reclassifiable: false };
}

/** The ASCII text spelled by Unicode tag characters (each a surrogate pair \uDB40\uDC00-\uDC7F). */
export function decodeTagCharacters(text: string): string {
  let ascii = '';
  for (let i = text.indexOf('\uDB40'); i !== -1 && i < text.length - 1 && ascii.length < MAX_TAG_CHARS; i = text.indexOf('\uDB40', i + 1)) {
    const low = text.charCodeAt(i + 1);
    if (low >= 0xdc00 && low <= 0xdc7f) ascii += ASCII[low - 0xdc00];
  }
  return ascii;
}

export function findHiddenText(path: string, raw: string): SafetyFinding[] {
  const findings: SafetyFinding[] = [];
  if (raw.includes('\uDB40')) {
    const decoded = decodeTagCharacters(raw);
    if (decoded.length >= MIN_TAG_CHARS) {
      const inner = runPhraseRules(INJECTION_RULES, 'security_scan', path, normalizeForScan(decoded));
      findings.push(hidden('unicode_tag_text', inner.some((f) => f.severity === 'high') ? 'high' : 'medium', path));
    }
  }
  let zeroWidth = 0;
  if (ANY_INVISIBLE.test(raw)) for (let i = 0; i < raw.length && zeroWidth < MIN_ZERO_WIDTH; i++) if (isInvisible(raw.charCodeAt(i))) zeroWidth++;
  if (zeroWidth >= MIN_ZERO_WIDTH) findings.push(hidden('zero_width_obfuscation', 'medium', path));
  return findings;
}
