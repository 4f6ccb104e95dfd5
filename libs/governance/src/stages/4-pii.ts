import { GatewayError } from '@svc/platform';
import { PiiAction } from '../data/policy';
import { scanPii } from '../scanners/pii/scan-pii';
import { PII_TYPES, PiiSeverity } from '../scanners/pii/types';
import { ALLOW, ChainContext, StageResult } from '../chain/context';
import { listOf } from '../chain/format';
import { NerEntity, PiiNerClient, nerSeverity } from './ner-client';

/**
 * Stage 4, PII scan over every user-provided text (SPEC.md table; scanners/pii). With the
 * `PII_NER` flag the texts also go to a Presidio-compatible analyzer, in one call with a short
 * deadline; when it fails, the pattern findings decide alone (fail open, logged). The policy's
 * `pii_action` decides: `block` refuses CRITICAL and HIGH findings and flags MEDIUM ones, `flag`
 * and `allow` let everything through with a logged warning. Messages and events name types and
 * field paths, never the values.
 */

export interface PiiFindingSummary {
  type: string;
  severity: PiiSeverity;
  path: string;
  count: number;
}

export interface PiiStageDeps {
  ner: PiiNerClient | null;
  /** Findings that were let through (flag, allow, MEDIUM only), to log for review. */
  onWarning(findings: PiiFindingSummary[], action: PiiAction): void;
  /** The analyzer failed: the pattern findings decide alone. */
  onNerError(err: unknown): void;
}

/** Most text sent to the analyzer per request; texts beyond it are covered by the patterns only. */
export const NER_MAX_CHARS = 256 * 1024;

async function nerFindings(ctx: ChainContext, ner: PiiNerClient): Promise<PiiFindingSummary[]> {
  const texts = ctx.texts();
  const spans: { path: string; start: number; end: number }[] = [];
  let joined = '';
  for (const { path, text } of texts) {
    if (joined.length + text.length > NER_MAX_CHARS) break;
    if (joined.length > 0) joined += '\n\n';
    spans.push({ path, start: joined.length, end: joined.length + text.length });
    joined += text;
  }
  if (joined.length === 0) return [];
  const entities: NerEntity[] = await ner.analyze(joined);
  const byKey = new Map<string, PiiFindingSummary>();
  for (const entity of entities) {
    const span = spans.find((s) => entity.start >= s.start && entity.start < s.end);
    if (!span) continue;
    const type = entity.entity_type.toLowerCase();
    const key = `${type}\u0000${span.path}`;
    const found = byKey.get(key);
    if (found) found.count++;
    else byKey.set(key, { type, severity: nerSeverity(entity.entity_type), path: span.path, count: 1 });
  }
  return [...byKey.values()];
}

export async function piiStage(ctx: ChainContext, deps: PiiStageDeps): Promise<StageResult> {
  const policy = ctx.policy;
  if (!policy.pii_scan_enabled) return ALLOW;
  const texts = ctx.texts();
  if (texts.length === 0) return ALLOW;
  const patterns = scanPii(texts, { action: 'allow' }).findings.map(({ type, path, count }) => ({ type, severity: PII_TYPES[type].severity, path, count }));
  let ner: PiiFindingSummary[] = [];
  if (deps.ner) {
    try {
      ner = await nerFindings(ctx, deps.ner);
    } catch (err) {
      deps.onNerError(err);
    }
  }
  const seen = new Set(patterns.map((f) => `${f.type}\u0000${f.path}`));
  const findings = [...patterns, ...ner.filter((f) => !seen.has(`${f.type}\u0000${f.path}`))];
  for (const finding of findings) {
    if (!ctx.findings.pii_types.includes(finding.type)) ctx.findings.pii_types.push(finding.type);
    ctx.findings.pii_counts[finding.type] = (ctx.findings.pii_counts[finding.type] ?? 0) + finding.count;
  }
  if (findings.length === 0) return ALLOW;
  const blocking = policy.pii_action === 'block' ? findings.filter((f) => f.severity !== 'MEDIUM') : [];
  if (blocking.length === 0) {
    deps.onWarning(findings, policy.pii_action);
    return ALLOW;
  }
  const types = [...new Set(blocking.map((f) => f.type))];
  const fields = [...new Set(blocking.map((f) => f.path))];
  const described = blocking.map((f) => `${f.type} in ${f.path}`).join(', ');
  return {
    outcome: 'BLOCK',
    error: new GatewayError(403, {
      message: `Request blocked: personal or secret data detected (${described}).`,
      type: 'permission_error',
      code: 'pii_detected',
      gateway_error_code: 'GW_PII_001',
      param: fields[0],
      remediation: `Remove or mask the ${listOf(types)} in ${listOf(fields)} before sending, or ask an admin to change pii_action.`,
    }),
    events: [
      {
        type: 'guardrail.triggered',
        data: {
          guardrail: 'pii_detected',
          reason: `${listOf(types)} detected`,
          model: ctx.input.model,
          details: { pii_types: types, field: fields.join(', ') },
          timestamp: ctx.timestamp,
        },
      },
    ],
  };
}
