import { scanContentSafety } from '../scanners/safety/content-safety';
import { SafetyFinding } from '../scanners/safety/types';
import { ALLOW, ChainContext, StageResult } from '../chain/context';

/**
 * Stage 4.5, content safety (flag CONTENT_SAFETY_SCAN or DLP_GUARDRAILS): prompt injection,
 * jailbreaks, system-prompt extraction and exfiltration intent in untrusted texts. Its findings
 * are not final: stage 4.7 re-scores them before a high one blocks with GW_SAFETY_001 (reported
 * as stage 4.5); medium findings are logged and allowed.
 */
export function contentSafetyStage(ctx: ChainContext): StageResult {
  if (!ctx.flags.contentSafety) return ALLOW;
  const { findings } = scanContentSafety(ctx.texts());
  recordSafetyFindings(ctx, findings);
  return ALLOW;
}

/** Keeps findings for 4.7 and their categories (with the highest severity) for the usage record. */
export function recordSafetyFindings(ctx: ChainContext, findings: readonly SafetyFinding[]): void {
  for (const finding of findings) {
    ctx.safetyFindings.push(finding);
    const own = finding.stage === 'content_safety';
    const categories = own ? ctx.findings.safety_categories : ctx.findings.security_categories;
    const severity = own ? ctx.findings.safety_severity : ctx.findings.security_severity;
    if (!categories.includes(finding.category)) categories.push(finding.category);
    if (severity[finding.category] !== 'high') severity[finding.category] = finding.severity;
  }
}
