/** Findings of the content-safety (4.5) and security (4.6) stages, re-scored by the classifier (4.7). */

export type SafetyStage = 'content_safety' | 'security_scan';
/** high: blocks (after 4.7 re-scoring); medium: logged and allowed. */
export type SafetySeverity = 'high' | 'medium';
export type SafetyCategory =
  | 'prompt_injection'
  | 'jailbreak'
  | 'system_prompt_extraction'
  | 'role_delimiter'
  | 'exfiltration'
  | 'encoded_payload'
  | 'hidden_text';

export interface SafetyFinding {
  stage: SafetyStage;
  /** Stable rule id, such as `ignore_previous_instructions`. */
  rule: string;
  category: SafetyCategory;
  severity: SafetySeverity;
  path: string;
  /** Offsets of the match in the normalized text of `path` (`normalizeForScan`); never the text itself. */
  start: number;
  end: number;
  /** false: hidden or encoded content, which quoting or framing cannot excuse (4.7 leaves it alone). */
  reclassifiable: boolean;
}

/** A text to scan: `extractTexts` output. Without `role` a text counts as user input. */
export interface SafetyTextInput {
  path: string;
  text: string;
  role?: string;
  /** `normalizedTextOf(this)`, once it was asked for (the scanners share it). */
  normalized?: string;
}

export interface SafetyScanOptions {
  /** Roles whose texts are scanned (default DEFAULT_SAFETY_ROLES). */
  roles?: readonly string[];
}

export interface SafetyScanResult {
  findings: SafetyFinding[];
  /** Before 4.7: `block` when a high-severity finding exists. Use `classifyFindings` before refusing. */
  decision: 'block' | 'allow';
}

/**
 * Untrusted input: user turns, tool results, embeddings input and tool descriptions (which often
 * come from third-party tool servers and are read by the model as instructions: "tool poisoning").
 * System, developer and assistant texts (assistant tool-call arguments included) are the
 * application's own or the model's (a system prompt saying "never reveal the system prompt" must
 * not block every request); end-user identifiers (`metadata`) never reach the model as text. Pass
 * `roles` to scan them as well.
 */
export const DEFAULT_SAFETY_ROLES: readonly string[] = Object.freeze(['user', 'tool', 'function', 'input', 'tool_definition']);

export function selectTexts<T extends SafetyTextInput>(texts: readonly T[], options: SafetyScanOptions = {}): T[] {
  const roles = options.roles ?? DEFAULT_SAFETY_ROLES;
  return texts.filter((text) => roles.includes(text.role ?? 'user'));
}

/** Arguments one `concat` is given at most: a spread of more overflows the stack (a body of 150,000 messages did). */
const CONCAT_CHUNK = 8192;

/**
 * The findings of every text as one list. One concat copies in bulk (flatMap costs a callback per
 * finding, and a flood is 50,000 findings per MB); the empty lists, which are most, are left out,
 * and the rest are spread in chunks.
 */
export function flattenFindings(lists: readonly SafetyFinding[][]): SafetyFinding[] {
  const found = lists.filter((list) => list.length > 0);
  if (found.length <= CONCAT_CHUNK) return ([] as SafetyFinding[]).concat(...found);
  let out: SafetyFinding[] = [];
  for (let i = 0; i < found.length; i += CONCAT_CHUNK) out = out.concat(...found.slice(i, i + CONCAT_CHUNK));
  return out;
}

export function decisionOf(findings: readonly SafetyFinding[]): 'block' | 'allow' {
  return findings.some((finding) => finding.severity === 'high') ? 'block' : 'allow';
}

/**
 * High findings the classifier (4.7) re-scores per field. A field with more is a flood, not a
 * question about attacks: the rest keep blocking, which bounds the work on adversarial input.
 */
export const MAX_RESCORED_PER_PATH = 1000;

/**
 * Findings kept per rule in one field. A text of 50,000 "ignore all previous instructions" makes no
 * better case with 50,000 findings than with 1,001, and allocating, classifying and reporting them
 * was most of the safety stages' time on such input. One more than the classifier re-scores keeps
 * every block-or-allow decision as it would be without the cap (docs/governance.md).
 */
export const MAX_FINDINGS_PER_RULE = MAX_RESCORED_PER_PATH + 1;

/** Findings of one scan of one field, counted per rule: `take` says whether one more is kept. */
export class FindingQuota {
  private readonly counts = new Map<string, number>();

  take(rule: string): boolean {
    const count = this.counts.get(rule) ?? 0;
    if (count >= MAX_FINDINGS_PER_RULE) return false;
    this.counts.set(rule, count + 1);
    return true;
  }
}
