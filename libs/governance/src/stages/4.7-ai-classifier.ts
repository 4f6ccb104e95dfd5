import type { GuardrailFinding } from '@svc/events';
import { GatewayError } from '@svc/platform';
import { ClassifiedFinding, classifyFindings, stageDecision } from '../scanners/safety/classifier';
import { applyExternalVerdicts, buildClassifierRequest, ExternalSafetyClassifier } from '../scanners/safety/external-classifier';
import { SafetyStage } from '../scanners/safety/types';
import { ALLOW, ChainContext, StageResult } from '../chain/context';
import { listOf } from '../chain/format';

/**
 * Stage 4.7, AI security classifier (DECISIONS.md): re-scores the findings of 4.5 and 4.6 before
 * they block — quoted text, code blocks, questions about attacks, negations — with the built-in
 * deterministic scorer, then, when `AI_CLASSIFIER_URL` is set, with the external classifier for
 * what still blocks. A high finding that survives refuses the request in the name of its stage:
 * 4.5 (GW_SAFETY_001) before 4.6 (GW_SECURITY_001). Everything else is logged.
 */

export interface ClassifierStageDeps {
  external: ExternalSafetyClassifier | null;
  /** Findings that do not block (medium, or cleared by the classifier), for the log. */
  onLogged(findings: ClassifiedFinding[]): void;
  onExternalError(err: unknown): void;
}

const REFUSALS: Record<SafetyStage, { stage: '4.5' | '4.6'; code: string; gw: string; what: string; remediation: string }> = {
  content_safety: {
    stage: '4.5',
    code: 'content_safety_violation',
    gw: 'GW_SAFETY_001',
    what: 'content safety',
    remediation: 'Remove the instructions that try to override the model or its rules; quote or fence examples you want discussed.',
  },
  security_scan: {
    stage: '4.6',
    code: 'security_scan_blocked',
    gw: 'GW_SECURITY_001',
    what: 'the security scanner',
    remediation: 'Remove hidden or encoded instructions and links that carry conversation data; quote or fence examples you want discussed.',
  },
};

/**
 * The event's findings: one entry per category and severity with how many findings it stands for.
 * A flooded field can hold tens of thousands of findings; the event (and every webhook delivery of
 * it) stays a few lines long.
 */
function findingKinds(findings: readonly ClassifiedFinding[]): GuardrailFinding[] {
  const kinds = new Map<string, GuardrailFinding>();
  for (const { category, severity } of findings) {
    const key = `${category}\u0000${severity}`;
    const kind = kinds.get(key);
    if (kind) kind.count++;
    else kinds.set(key, { category, severity, count: 1 });
  }
  return [...kinds.values()];
}

function refusal(ctx: ChainContext, stage: SafetyStage, blocking: ClassifiedFinding[]): StageResult {
  const spec = REFUSALS[stage];
  const categories = [...new Set(blocking.map((f) => f.category))];
  const paths = [...new Set(blocking.map((f) => f.path))];
  return {
    outcome: 'BLOCK',
    stage: spec.stage,
    error: new GatewayError(403, {
      message: `Request blocked by ${spec.what}: ${listOf(categories)} in ${listOf(paths)}.`,
      type: 'permission_error',
      code: spec.code,
      gateway_error_code: spec.gw,
      param: paths[0],
      remediation: `${spec.remediation} If this is a false positive, ask an admin to review the guardrail settings.`,
    }),
    events: [
      {
        type: 'guardrail.triggered',
        data: {
          guardrail: stage,
          reason: `${listOf(categories)} detected`,
          model: ctx.input.model,
          details: { findings: findingKinds(blocking) },
          timestamp: ctx.timestamp,
        },
      },
    ],
  };
}

export async function classifierStage(ctx: ChainContext, deps: ClassifierStageDeps): Promise<StageResult> {
  if (ctx.safetyFindings.length === 0) return ALLOW;
  const texts = ctx.texts();
  let classified = classifyFindings(texts, ctx.safetyFindings);
  if (deps.external && classified.some((f) => f.blocks && f.reclassifiable)) {
    const request = buildClassifierRequest(texts, classified);
    if (request.items.length > 0) {
      try {
        classified = applyExternalVerdicts(classified, await deps.external.classify(request));
      } catch (err) {
        deps.onExternalError(err);
      }
    }
  }
  const safety = stageDecision(classified, 'content_safety');
  const security = stageDecision(classified, 'security_scan');
  const logged = [...safety.logged, ...security.logged];
  if (logged.length > 0) deps.onLogged(logged);
  if (safety.decision === 'block') return refusal(ctx, 'content_safety', safety.blocking);
  if (security.decision === 'block') return refusal(ctx, 'security_scan', security.blocking);
  return ALLOW;
}
