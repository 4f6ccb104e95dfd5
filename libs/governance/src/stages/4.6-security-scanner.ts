import { scanSecurity } from '../scanners/safety/security-scanner';
import { ALLOW, ChainContext, StageResult } from '../chain/context';
import { recordSafetyFindings } from './4.5-content-safety';

/**
 * Stage 4.6, security scanner (flag SECURITY_SCANNER or DLP_GUARDRAILS): injection, exfiltration
 * (data-carrying URLs, image beacons, "send the contents to ...") and encoded payloads. When 4.5
 * ran too, the injection phrases are not matched twice. Stage 4.7 decides on the findings; a high
 * one that survives blocks with GW_SECURITY_001 (reported as stage 4.6).
 */
export function securityScannerStage(ctx: ChainContext): StageResult {
  if (!ctx.flags.securityScanner) return ALLOW;
  const { findings } = scanSecurity(ctx.texts(), { injection: !ctx.flags.contentSafety });
  recordSafetyFindings(ctx, findings);
  return ALLOW;
}
