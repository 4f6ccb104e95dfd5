import { normalizedTextOf } from './normalize';
import { INJECTION_RULES, runPhraseRules } from './rules';
import { SafetyScanOptions, SafetyScanResult, SafetyTextInput, decisionOf, flattenFindings, selectTexts } from './types';

/**
 * Stage 4.5 (flag CONTENT_SAFETY_SCAN or DLP_GUARDRAILS): prompt injection ("ignore all previous
 * instructions"), jailbreak personas and role-play ("you are now DAN", "pretend you have no
 * restrictions"), system-prompt extraction, fake role delimiters and exfiltration intent.
 * High findings block with GW_SAFETY_001 unless stage 4.7 (`classifyFindings`) clears them;
 * medium findings are logged and allowed.
 */
export function scanContentSafety(texts: readonly SafetyTextInput[], options: SafetyScanOptions = {}): SafetyScanResult {
  const lists = selectTexts(texts, options).map((input) =>
    runPhraseRules(INJECTION_RULES, 'content_safety', input.path, normalizedTextOf(input)),
  );
  const findings = flattenFindings(lists);
  return { findings, decision: decisionOf(findings) };
}
