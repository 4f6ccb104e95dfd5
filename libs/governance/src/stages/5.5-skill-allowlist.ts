import { GatewayError } from '@svc/platform';
import { ALLOW, ChainContext, StageResult } from '../chain/context';
import { listOf } from '../chain/format';

/**
 * Stage 5.5, skill allowlist (DECISIONS.md): a request's skills are the names of its tools,
 * `tools[].function.name` (format A) and `tools[].name` (format B). With a non-empty
 * `allowed_skills`, every one must be in it (exact names).
 */
export function skillsOf(body: unknown): string[] {
  if (typeof body !== 'object' || body === null || !Array.isArray((body as { tools?: unknown }).tools)) return [];
  const names: string[] = [];
  for (const tool of (body as { tools: unknown[] }).tools) {
    if (typeof tool !== 'object' || tool === null) continue;
    const fn = (tool as { function?: { name?: unknown } }).function;
    const name = typeof fn?.name === 'string' ? fn.name : (tool as { name?: unknown }).name;
    if (typeof name === 'string' && name.length > 0 && !names.includes(name)) names.push(name);
  }
  return names;
}

export function skillAllowlistStage(ctx: ChainContext): StageResult {
  const skills = skillsOf(ctx.input.body);
  ctx.findings.skills = skills;
  const allowed = ctx.policy.allowed_skills;
  if (allowed.length === 0) return ALLOW;
  const refused = skills.filter((skill) => !allowed.includes(skill));
  if (refused.length === 0) return ALLOW;
  return {
    outcome: 'BLOCK',
    error: new GatewayError(403, {
      message: `The skill${refused.length > 1 ? 's' : ''} ${listOf(refused)} ${refused.length > 1 ? 'are' : 'is'} not in the organization's allowed skills.`,
      type: 'permission_error',
      code: 'skill_not_allowed',
      gateway_error_code: 'GW_SKILL_001',
      param: 'tools',
      remediation: `Remove ${listOf(refused)} from tools, or ask an admin to add ${refused.length > 1 ? 'them' : 'it'} to allowed_skills.`,
    }),
  };
}
