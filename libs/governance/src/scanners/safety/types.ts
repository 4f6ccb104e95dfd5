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
 * Untrusted input: user turns, tool results and embeddings input. System, developer and
 * assistant texts are the application's own (a system prompt saying "never reveal the system
 * prompt" must not block every request); pass `roles` to scan them as well.
 */
export const DEFAULT_SAFETY_ROLES: readonly string[] = Object.freeze(['user', 'tool', 'function', 'input']);

export function selectTexts<T extends SafetyTextInput>(texts: readonly T[], options: SafetyScanOptions = {}): T[] {
  const roles = options.roles ?? DEFAULT_SAFETY_ROLES;
  return texts.filter((text) => roles.includes(text.role ?? 'user'));
}

export function decisionOf(findings: readonly SafetyFinding[]): 'block' | 'allow' {
  return findings.some((finding) => finding.severity === 'high') ? 'block' : 'allow';
}
