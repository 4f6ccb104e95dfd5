import { normalizedTextOf } from './normalize';
import { ClassifiedFinding, classified } from './classifier';
import { SafetyTextInput } from './types';

/**
 * The optional external classifier of stage 4.7 (DECISIONS.md: "Optional: an external classifier
 * URL"). Only the contract lives here; the HTTP client, its deadline and its failure policy belong
 * to the chain runner. The gateway sends the findings that still block after the built-in scorer,
 * each with a short excerpt around the match, and applies the verdicts with `applyExternalVerdicts`.
 */

export interface ExternalClassifierItem {
  /** Index of the finding in the list given to `buildClassifierRequest`. */
  id: number;
  stage: ClassifiedFinding['stage'];
  category: ClassifiedFinding['category'];
  rule: string;
  severity: ClassifiedFinding['severity'];
  path: string;
  /** Normalized text around the match. */
  excerpt: string;
}

export interface ExternalClassifierRequest {
  items: ExternalClassifierItem[];
}

export interface ExternalClassifierVerdict {
  id: number;
  /** Probability (0-1) that the text is an attack. */
  malicious: number;
}

export interface ExternalSafetyClassifier {
  classify(request: ExternalClassifierRequest, signal?: AbortSignal): Promise<ExternalClassifierVerdict[]>;
}

export const EXCERPT_CHARS = 200;

/** The request for the findings that block and can be re-scored (hidden or encoded ones cannot). */
export function buildClassifierRequest(
  texts: readonly SafetyTextInput[],
  classified: readonly ClassifiedFinding[],
  excerptChars = EXCERPT_CHARS,
): ExternalClassifierRequest {
  const byPath = new Map(texts.map((input) => [input.path, input]));
  const items: ExternalClassifierItem[] = [];
  classified.forEach((finding, id) => {
    const input = byPath.get(finding.path);
    if (!finding.blocks || !finding.reclassifiable || !input) return;
    const text = normalizedTextOf(input);
    const excerpt = text.slice(Math.max(finding.start - excerptChars, 0), Math.min(finding.end + excerptChars, text.length));
    items.push({ id, stage: finding.stage, category: finding.category, rule: finding.rule, severity: finding.severity, path: finding.path, excerpt });
  });
  return { items };
}

/**
 * Applies verdicts: a finding the classifier judged benign (malicious below `threshold`) stops
 * blocking; a finding without a verdict keeps the built-in decision.
 */
export function applyExternalVerdicts(
  findings: readonly ClassifiedFinding[],
  verdicts: readonly ExternalClassifierVerdict[],
  threshold = 0.5,
): ClassifiedFinding[] {
  const byId = new Map(verdicts.map((verdict) => [verdict.id, verdict.malicious]));
  return findings.map((finding, id) => {
    const malicious = byId.get(id);
    if (malicious === undefined || !finding.reclassifiable || !finding.blocks || !Number.isFinite(malicious)) return finding;
    return classified(finding, malicious, finding.reasons, malicious >= threshold);
  });
}
