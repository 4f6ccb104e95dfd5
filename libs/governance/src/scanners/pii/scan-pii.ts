import { PiiAction } from '../../data/policy';
import {
  anthropicKeyDetector,
  bearerTokenDetector,
  cloudKeyDetector,
  gatewayKeyDetector,
  genericSecretDetector,
  githubTokenDetector,
  openaiKeyDetector,
  slackTokenDetector,
} from './credentials';
import { germanIdDetector, ninoDetector, passportDetector, vatDetector } from './eu';
import { creditCardDetector, ibanDetector } from './financial';
import { icd10Detector, medicationDetector } from './health';
import { emailDetector, ssnDetector } from './identifiers';
import { webhookUrlDetector } from './webhooks';
import { PII_TYPES, PiiCategory, PiiDetector, PiiSeverity, PiiType } from './types';

export const PII_DETECTORS: readonly PiiDetector[] = Object.freeze([
  anthropicKeyDetector,
  openaiKeyDetector,
  gatewayKeyDetector,
  bearerTokenDetector,
  cloudKeyDetector,
  githubTokenDetector,
  slackTokenDetector,
  webhookUrlDetector,
  genericSecretDetector,
  ssnDetector,
  emailDetector,
  creditCardDetector,
  ibanDetector,
  vatDetector,
  passportDetector,
  ninoDetector,
  germanIdDetector,
  icd10Detector,
  medicationDetector,
]);

export interface PiiTextInput {
  path: string;
  text: string;
}

/** One PII type found in one field. Never carries the matched value. */
export interface PiiFinding {
  type: PiiType;
  category: PiiCategory;
  severity: PiiSeverity;
  path: string;
  /** How many matches of the type the field holds. */
  count: number;
}

/**
 * - `block`: the request is refused (403 `pii_detected`, GW_PII_001); `blocking` lists why.
 * - `flag`: the request goes on; the findings are logged for review.
 * - `allow`: the request goes on; with `warning` the findings are logged as a warning.
 */
export type PiiDecision = 'block' | 'flag' | 'allow';

export interface PiiScanResult {
  decision: PiiDecision;
  findings: PiiFinding[];
  /** The CRITICAL and HIGH findings that caused a block (empty unless `decision` is `block`). */
  blocking: PiiFinding[];
  /** Findings exist and the organization's action lets them through (`flag` or `allow`, or MEDIUM only). */
  warning: boolean;
}

export interface PiiScanOptions {
  action: PiiAction;
  /** Only these types (default: all). */
  types?: readonly PiiType[];
}

/** The PII types in one text with their match counts. */
export function detectPii(text: string, types?: readonly PiiType[]): { type: PiiType; count: number }[] {
  const found: { type: PiiType; count: number }[] = [];
  for (const detector of PII_DETECTORS) {
    if (types && !types.includes(detector.type)) continue;
    const spans = detector.find(text);
    // Distinct start offsets; most texts hold no match at all, so no Set for zero or one.
    const count = spans.length < 2 ? spans.length : new Set(spans.map((span) => span.start)).size;
    if (count > 0) found.push({ type: detector.type, count });
  }
  return found;
}

/**
 * Stage 4. With `pii_action: block` CRITICAL and HIGH findings block and MEDIUM ones are flagged;
 * with `flag` nothing blocks and everything is flagged; with `allow` the request is allowed with
 * a warning. Build client messages from `type` and `path` only (see `describePiiFindings`).
 */
export function scanPii(texts: readonly PiiTextInput[], options: PiiScanOptions): PiiScanResult {
  const findings: PiiFinding[] = [];
  for (const { path, text } of texts) {
    for (const { type, count } of detectPii(text, options.types)) findings.push({ type, ...PII_TYPES[type], path, count });
  }
  if (findings.length === 0) return { decision: 'allow', findings, blocking: [], warning: false };
  if (options.action === 'block') {
    const blocking = findings.filter((finding) => finding.severity !== 'MEDIUM');
    if (blocking.length > 0) return { decision: 'block', findings, blocking, warning: false };
    return { decision: 'flag', findings, blocking: [], warning: true };
  }
  return { decision: options.action, findings, blocking: [], warning: true };
}

/** "credit_card in messages[0].content, email in system": types and field paths, never values. */
export function describePiiFindings(findings: readonly PiiFinding[]): string {
  return findings.map((finding) => `${finding.type} in ${finding.path}`).join(', ');
}
