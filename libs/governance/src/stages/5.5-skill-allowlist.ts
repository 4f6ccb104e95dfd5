import { GatewayError } from '@svc/platform';
import { ALLOW, ChainContext, StageResult } from '../chain/context';
import { listOf } from '../chain/format';

/**
 * Stage 5.5, skill allowlist (DECISIONS.md): a request's skills are the names of the tools it
 * declares or forces: `tools[].function.name` (format A), `tools[].name` (format B and format-A
 * style tools without `function`), legacy format-A `functions[].name`, and the names a forced call
 * gives, `tool_choice.function.name` (A), `tool_choice.name` (B) and legacy `function_call.name`.
 * With a non-empty `allowed_skills`, every one must be in it (exact names).
 */
type SkillField = 'tools' | 'functions' | 'tool_choice' | 'function_call';

interface Skill {
  name: string;
  /** The body field that names it: the `param` of a refusal. */
  field: SkillField;
}

function nameOf(value: unknown): unknown {
  return typeof value === 'object' && value !== null ? (value as { name?: unknown }).name : undefined;
}

/** `{function: {name}}` (format A) or `{name}` (format B). */
function toolName(tool: unknown): unknown {
  if (typeof tool !== 'object' || tool === null) return undefined;
  const fn = (tool as { function?: unknown }).function;
  const name = nameOf(fn);
  return typeof name === 'string' ? name : nameOf(tool);
}

function add(skills: Skill[], name: unknown, field: SkillField): void {
  if (typeof name === 'string' && name.length > 0 && !skills.some((skill) => skill.name === name)) skills.push({ name, field });
}

function skillEntries(body: unknown): Skill[] {
  const skills: Skill[] = [];
  if (typeof body !== 'object' || body === null) return skills;
  const { tools, functions, tool_choice, function_call } = body as Record<string, unknown>;
  if (Array.isArray(tools)) for (const tool of tools) add(skills, toolName(tool), 'tools');
  if (Array.isArray(functions)) for (const fn of functions) add(skills, nameOf(fn), 'functions');
  if (tool_choice !== undefined) add(skills, toolName(tool_choice), 'tool_choice');
  if (function_call !== undefined) add(skills, nameOf(function_call), 'function_call');
  return skills;
}

export function skillsOf(body: unknown): string[] {
  return skillEntries(body).map((skill) => skill.name);
}

export function skillAllowlistStage(ctx: ChainContext): StageResult {
  const entries = skillEntries(ctx.input.body);
  ctx.findings.skills = entries.map((skill) => skill.name);
  const allowed = ctx.policy.allowed_skills;
  if (allowed.length === 0) return ALLOW;
  const refusedEntries = entries.filter((skill) => !allowed.includes(skill.name));
  if (refusedEntries.length === 0) return ALLOW;
  const refused = refusedEntries.map((skill) => skill.name);
  const fields = [...new Set(refusedEntries.map((skill) => skill.field))];
  return {
    outcome: 'BLOCK',
    error: new GatewayError(403, {
      message: `The skill${refused.length > 1 ? 's' : ''} ${listOf(refused)} ${refused.length > 1 ? 'are' : 'is'} not in the organization's allowed skills.`,
      type: 'permission_error',
      code: 'skill_not_allowed',
      gateway_error_code: 'GW_SKILL_001',
      param: fields[0],
      remediation: `Remove ${listOf(refused)} from ${listOf(fields)}, or ask an admin to add ${refused.length > 1 ? 'them' : 'it'} to allowed_skills.`,
    }),
  };
}
