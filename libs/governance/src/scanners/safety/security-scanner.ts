import { DecodeBudget, findEncoded } from './encoded';
import { findLinkInstructions, findSendTo, findUrlExfiltration } from './exfiltration';
import { findHiddenText } from './hidden-text';
import { normalizedTextOf } from './normalize';
import { INJECTION_RULES, runPhraseRules } from './rules';
import { SafetyFinding, SafetyScanOptions, SafetyScanResult, SafetyTextInput, decisionOf, flattenFindings, selectTexts } from './types';

export interface SecurityScanOptions extends SafetyScanOptions {
  /**
   * Also run the injection phrase rules (default true). Pass false when stage 4.5 already ran
   * on the same texts, so the same phrase is not reported twice.
   */
  injection?: boolean;
}

const EXFILTRATION_RULE_IDS = new Set(['send_data_to']);
const INJECTION_ONLY = INJECTION_RULES.filter((rule) => !EXFILTRATION_RULE_IDS.has(rule.id));

/**
 * Stage 4.6 (flag SECURITY_SCANNER or DLP_GUARDRAILS): injection (phrase rules, hidden Unicode
 * text), exfiltration (data-carrying URLs, image beacons, "send the contents to <destination>",
 * instructions to put conversation data in a link) and encoded payloads (base64/hex that decodes
 * to instructions). High findings block with GW_SECURITY_001 unless 4.7 clears them.
 */
export function scanSecurity(texts: readonly SafetyTextInput[], options: SecurityScanOptions = {}): SafetyScanResult {
  const budget = new DecodeBudget();
  const lists: SafetyFinding[][] = [];
  for (const input of selectTexts(texts, options)) {
    const text = normalizedTextOf(input);
    const lower = text.toLowerCase();
    if (options.injection !== false) lists.push(runPhraseRules(INJECTION_ONLY, 'security_scan', input.path, text, lower));
    lists.push(
      findHiddenText(input.path, input.text),
      findUrlExfiltration(input.path, text),
      findSendTo(input.path, text),
      findLinkInstructions(input.path, text, lower),
      findEncoded(input.path, text, budget),
    );
  }
  const findings = flattenFindings(lists);
  return { findings, decision: decisionOf(findings) };
}
