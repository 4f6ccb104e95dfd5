import { chatBody, contextFor } from '../chain/governance.fixtures';
import { skillAllowlistStage, skillsOf } from './5.5-skill-allowlist';

const openaiTools = [{ type: 'function', function: { name: 'get_weather', parameters: {} } }, { type: 'function', function: { name: 'send_email' } }];
const anthropicTools = [{ name: 'get_weather', input_schema: {} }, { type: 'web_search_20250305', name: 'web_search' }];

describe('stage 5.5, skill allowlist', () => {
  it('reads tool names of format A and format B', () => {
    expect(skillsOf({ tools: openaiTools })).toEqual(['get_weather', 'send_email']);
    expect(skillsOf({ tools: anthropicTools })).toEqual(['get_weather', 'web_search']);
    expect(skillsOf(chatBody())).toEqual([]);
  });

  it('reads legacy format-A functions and the names of forced calls', () => {
    expect(skillsOf({ functions: [{ name: 'fetch', parameters: {} }, { name: 'fetch' }, null, { description: 'no name' }] })).toEqual(['fetch']);
    expect(skillsOf({ functions: [{ name: 'search' }], function_call: { name: 'fetch' } })).toEqual(['search', 'fetch']);
    expect(skillsOf({ tools: openaiTools, tool_choice: { type: 'function', function: { name: 'run_shell' } } })).toEqual(['get_weather', 'send_email', 'run_shell']);
    expect(skillsOf({ tools: anthropicTools, tool_choice: { type: 'tool', name: 'web_search' } })).toEqual(['get_weather', 'web_search']);
    expect(skillsOf({ functions: [{ name: 'a' }], function_call: 'auto', tool_choice: 'required' })).toEqual(['a']);
  });

  it('refuses a legacy function outside the list, naming the functions field', () => {
    const legacy = contextFor({ profile: { policy: { allowed_skills: ['search'] } }, input: { body: chatBody('hi', { functions: [{ name: 'search' }, { name: 'fetch' }] }) } });
    const result = skillAllowlistStage(legacy);
    if (result.outcome !== 'BLOCK') throw new Error('expected BLOCK');
    expect(result.error.body).toMatchObject({ code: 'skill_not_allowed', gateway_error_code: 'GW_SKILL_001', param: 'functions' });
    expect(result.error.body.message).toBe("The skill fetch is not in the organization's allowed skills.");
    expect(legacy.findings.skills).toEqual(['search', 'fetch']);
    const forced = skillAllowlistStage(contextFor({ profile: { policy: { allowed_skills: ['search'] } }, input: { body: chatBody('hi', { function_call: { name: 'fetch' } }) } }));
    expect(forced.outcome === 'BLOCK' && forced.error.body.param).toBe('function_call');
    const formatB = skillAllowlistStage(contextFor({ profile: { policy: { allowed_skills: ['search'] } }, input: { format: 'anthropic', body: { messages: [], tools: [{ name: 'fetch', input_schema: {} }] } } }));
    expect(formatB.outcome === 'BLOCK' && formatB.error.body.param).toBe('tools');
    const ok = contextFor({ profile: { policy: { allowed_skills: ['search'] } }, input: { body: chatBody('hi', { functions: [{ name: 'search' }], function_call: { name: 'search' } }) } });
    expect(skillAllowlistStage(ok).outcome).toBe('ALLOW');
  });

  it('allows every skill with an empty list and records them', () => {
    const ctx = contextFor({ input: { body: chatBody('hi', { tools: openaiTools }) } });
    expect(skillAllowlistStage(ctx).outcome).toBe('ALLOW');
    expect(ctx.findings.skills).toEqual(['get_weather', 'send_email']);
  });

  it('refuses a skill outside the list with skill_not_allowed GW_SKILL_001', () => {
    const ctx = contextFor({ profile: { policy: { allowed_skills: ['get_weather'] } }, input: { body: chatBody('hi', { tools: openaiTools }) } });
    const result = skillAllowlistStage(ctx);
    if (result.outcome !== 'BLOCK') throw new Error('expected BLOCK');
    expect(result.error.status).toBe(403);
    expect(result.error.body).toMatchObject({ type: 'permission_error', code: 'skill_not_allowed', gateway_error_code: 'GW_SKILL_001', param: 'tools' });
    expect(result.error.body.message).toBe("The skill send_email is not in the organization's allowed skills.");
    const allowed = contextFor({ profile: { policy: { allowed_skills: ['get_weather', 'web_search'] } }, input: { body: { messages: [], tools: anthropicTools } } });
    expect(skillAllowlistStage(allowed).outcome).toBe('ALLOW');
  });
});
