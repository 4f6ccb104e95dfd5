import { GatewayError } from '@svc/platform';
import { ALLOW, ChainContext, StageResult } from '../chain/context';

/**
 * Stage 5, model allowlist: when the policy's `allowed_models` is not empty, the model after alias
 * resolution must be in it. An entry matches, ignoring case, the model as routed
 * (`groq/llama-3.3-70b`), the model id without its route prefix (`llama-3.3-70b`) or
 * `<provider>/<model id>`; an entry ending in `*` matches every id it prefixes (`gpt-4o*`).
 */
export function modelAllowed(allowed: readonly string[], ctx: ChainContext): boolean {
  if (allowed.length === 0) return true;
  const bare = ctx.bareModel.toLowerCase();
  const candidates = [ctx.input.model.toLowerCase(), bare, `${ctx.input.provider.toLowerCase()}/${bare}`];
  return allowed.some((entry) => {
    const rule = entry.trim().toLowerCase();
    if (rule.endsWith('*')) return candidates.some((candidate) => candidate.startsWith(rule.slice(0, -1)));
    return candidates.includes(rule);
  });
}

/**
 * A D catch-all call whose body names no model the gateway can read (no JSON body, say a GET or a
 * multipart upload, or no `model` in it): the proxy checks it as the provider id. Still refused
 * (a multipart body may carry a model the gateway cannot read), with a message saying so.
 */
function namesNoModel(ctx: ChainContext): boolean {
  if (ctx.input.endpoint !== 'passthrough') return false;
  const body = ctx.input.body;
  const model = body !== null && typeof body === 'object' ? (body as Record<string, unknown>).model : undefined;
  return typeof model !== 'string' || model === '';
}

/** The refusal's message and remediation; built only when the stage refuses. */
function refusalText(ctx: ChainContext, shown: string): { message: string; remediation: string } {
  const { provider, model } = ctx.input;
  if (namesNoModel(ctx)) {
    return {
      message: `This call names no model the gateway can read (no JSON body with a model field), so it is checked as provider ${provider}, which is not in the organization's allowed models (${shown}).`,
      remediation: `Add ${provider}/* (or the ${provider} models this call uses) to allowed_models, or send a JSON body with model.`,
    };
  }
  return {
    message: `The model ${model} is not in the organization's allowed models (${shown}).`,
    remediation: 'Use one of the allowed models, or ask an admin to add this model to allowed_models.',
  };
}

export function modelAllowlistStage(ctx: ChainContext): StageResult {
  const allowed = ctx.policy.allowed_models;
  if (modelAllowed(allowed, ctx)) return ALLOW;
  const shown = allowed.length > 10 ? `${allowed.slice(0, 10).join(', ')}, ...` : allowed.join(', ');
  return {
    outcome: 'BLOCK',
    error: new GatewayError(403, {
      ...refusalText(ctx, shown),
      type: 'permission_error',
      code: 'model_not_allowed',
      gateway_error_code: 'GW_MODEL_001',
      param: 'model',
    }),
    events: [
      {
        type: 'guardrail.triggered',
        data: {
          guardrail: 'model_blocked',
          reason: `model ${ctx.input.model} is not in allowed_models`,
          model: ctx.input.model,
          details: { findings: [{ category: 'model_not_allowed', severity: 'high', count: 1 }] },
          timestamp: ctx.timestamp,
        },
      },
    ],
  };
}
