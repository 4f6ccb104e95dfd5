import { PII_DETECTORS } from './scan-pii';
import { PiiSpan, PiiType } from './types';

/** What a match of `type` is replaced with in a masked text: `[REDACTED:email]`, `[REDACTED:credit_card]`. */
export function piiMask(type: PiiType): string {
  return `[REDACTED:${type}]`;
}

/**
 * `text` with every match of the stage 4 pattern detectors (`PII_DETECTORS`: credentials, e-mail
 * addresses, SSNs, card numbers, IBANs, EU identifiers, health data) replaced by its mask
 * (`piiMask`), the rest of the text unchanged; `text` itself when nothing matches. The same
 * detectors as the scan, so the same linear cost; overlapping matches become one mask, named after
 * the match that starts first. Used where a text is written somewhere it should not carry personal
 * data: request bodies logged by `LOG_BODIES`.
 */
export function maskPii(text: string): string {
  const found: (PiiSpan & { type: PiiType })[] = [];
  for (const detector of PII_DETECTORS) {
    for (const span of detector.find(text)) if (span.end > span.start) found.push({ type: detector.type, start: span.start, end: span.end });
  }
  if (found.length === 0) return text;
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  let masked = '';
  let at = 0;
  for (const span of found) {
    if (span.end <= at) continue;
    if (span.start < at) {
      // Overlaps the previous mask: that mask now covers this match's tail as well.
      at = span.end;
      continue;
    }
    masked += text.slice(at, span.start) + piiMask(span.type);
    at = span.end;
  }
  return masked + text.slice(at);
}
