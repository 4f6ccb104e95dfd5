import { contextFor, chatBody } from '../chain/governance.fixtures';
import { reasoningCapStage, reasoningTokens } from './1.7-reasoning-cap';

describe('stage 1.7, reasoning token cap', () => {
  it('does nothing without a cap, but records what the request asks for', () => {
    const ctx = contextFor({ input: { body: chatBody('hi', { max_completion_tokens: 50_000 }) } });
    expect(reasoningCapStage(ctx).outcome).toBe('ALLOW');
    expect(ctx.findings.reasoning_tokens).toBe(50_000);
  });

  it('reads max_completion_tokens, reasoning_effort and thinking.budget_tokens', () => {
    expect(reasoningTokens({ reasoning_effort: 'low' })).toBe(4096);
    expect(reasoningTokens({ reasoning: { effort: 'high' } })).toBe(32768);
    expect(reasoningTokens({ thinking: { type: 'enabled', budget_tokens: 10000 }, max_tokens: 16000 })).toBe(10000);
    expect(reasoningTokens({ thinking: { type: 'disabled', budget_tokens: 10000 } })).toBeNull();
    expect(reasoningTokens(chatBody())).toBeNull();
  });

  it("reads Gemini's extra_body.google.thinking_config, which provider C sends as it is", () => {
    const gemini = (thinking_config: unknown) => ({ extra_body: { google: { thinking_config } } });
    expect(reasoningTokens(gemini({ thinking_budget: 20000, include_thoughts: true }))).toBe(20000);
    expect(reasoningTokens(gemini({ thinking_budget: 0 }))).toBe(0);
    expect(reasoningTokens(gemini({ thinking_level: 'HIGH' }))).toBe(32768);
    // -1 lets the model decide, as a request that names no budget at all.
    expect(reasoningTokens(gemini({ thinking_budget: -1 }))).toBeNull();
    expect(reasoningTokens(gemini({ include_thoughts: true }))).toBeNull();
  });

  it.each([
    [{ max_completion_tokens: 9000 }, 'max_completion_tokens'],
    [{ reasoning_effort: 'high' }, 'reasoning_effort'],
    [{ thinking: { type: 'enabled', budget_tokens: 8193 } }, 'thinking.budget_tokens'],
    [{ extra_body: { google: { thinking_config: { thinking_budget: 8193 } } } }, 'extra_body.google.thinking_config.thinking_budget'],
    [{ extra_body: { google: { thinking_config: { thinking_level: 'medium' } } } }, 'extra_body.google.thinking_config.thinking_level'],
  ])('refuses %j above a cap of 8192 with GW_REASONING_001', (extra, field) => {
    const result = reasoningCapStage(contextFor({ profile: { policy: { max_reasoning_tokens: 8192 } }, input: { body: chatBody('hi', extra) } }));
    if (result.outcome !== 'BLOCK') throw new Error('expected BLOCK');
    expect(result.error.status).toBe(403);
    expect(result.error.body).toMatchObject({ type: 'permission_error', code: 'reasoning_cap_exceeded', gateway_error_code: 'GW_REASONING_001', param: field });
    expect(result.error.body.message).toContain('8192');
  });

  it('allows requests within the cap', () => {
    const ctx = contextFor({ profile: { policy: { max_reasoning_tokens: 8192 } }, input: { body: chatBody('hi', { reasoning_effort: 'low', max_completion_tokens: 8192 }) } });
    expect(reasoningCapStage(ctx).outcome).toBe('ALLOW');
  });
});
