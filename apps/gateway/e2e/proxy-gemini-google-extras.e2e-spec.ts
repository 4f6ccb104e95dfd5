import OpenAI from 'openai';
import { asOrgId } from '@svc/domain';
import { GEMINI_THOUGHT_TOKENS, mockReply } from '@svc/mock-provider';
import { createOrg, geminiSuite, Json, openaiClient, openaiFailure } from './harness';

type Params = OpenAI.ChatCompletionCreateParamsNonStreaming & { extra_body?: Json; reasoning?: Json };

/**
 * Provider C through the official OpenAI SDK with Google's OpenAI-compatible extras: the Node SDK
 * sends `extra_body` as it is (Google's JavaScript example), so the gateway reads
 * `extra_body.google.thinking_config` / `cached_content` and the `reasoning: {effort}` form, answers
 * thought summaries in `<thought>` tags, and the reasoning cap (stage 1.7) counts the thinking budget.
 */
describe('provider C (gemini) extra_body.google and reasoning.effort through the OpenAI SDK', () => {
  const gemini = geminiSuite();

  const params = (model: string, extra: Json): Params => ({ model, messages: [{ role: 'user', content: 'think' }], ...extra });

  it('sends thinking_config and cached_content to Gemini and answers the thought summary in <thought> tags', async () => {
    const google = { thinking_config: { thinking_budget: 800, include_thoughts: true }, cached_content: 'cachedContents/mock-cache' };
    const answer = await gemini.client.chat.completions.create(params('gemini-2.5-flash', { extra_body: { google } }));
    expect(gemini.upstreamBody().generationConfig).toEqual({ thinkingConfig: { thinkingBudget: 800, includeThoughts: true } });
    expect(gemini.upstreamBody().cachedContent).toBe('cachedContents/mock-cache');
    expect(answer.choices[0].message.content).toBe(`<thought>Thinking about: think</thought>${mockReply('think')}`);
    expect(answer.usage?.completion_tokens_details?.reasoning_tokens).toBe(Math.min(800, GEMINI_THOUGHT_TOKENS));
  });

  it('maps reasoning: {effort} like reasoning_effort, with include_thoughts, streamed', async () => {
    const google = { thinking_config: { include_thoughts: true } };
    const stream = await gemini.client.chat.completions.create({ ...params('gemini-3-flash-preview', { reasoning: { effort: 'high' }, extra_body: { google } }), stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(gemini.upstreamBody().generationConfig).toEqual({ thinkingConfig: { thinkingLevel: 'HIGH', includeThoughts: true } });
    expect(text).toBe(`<thought>Thinking about: think</thought>${mockReply('think')}`);
  });

  it('closes the thought summary before the error event of a stream broken upstream mid-thought', async () => {
    gemini.gw.mock.setBehavior({ match: { format: 'gemini' }, abort: { afterChunks: 1 } }); // the thought summary's chunk, then the cut
    const google = { thinking_config: { include_thoughts: true } };
    const stream = await gemini.client.chat.completions.create({ ...params('gemini-2.5-flash', { extra_body: { google } }), stream: true });
    let text = '';
    const failure = await (async () => {
      try {
        for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(text).toBe('<thought>Thinking about: think</thought>');
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect(failure).toMatchObject({ code: 'upstream_stream_error' });
  });

  it('refuses reasoning_effort with a thinking budget, and an unknown google field, naming the param and sending nothing', async () => {
    const both = await openaiFailure(() =>
      gemini.client.chat.completions.create(params('gemini-2.5-flash', { reasoning_effort: 'low', extra_body: { google: { thinking_config: { thinking_budget: 0 } } } })),
    );
    expect(both.status).toBe(400);
    expect(both.error).toMatchObject({ type: 'invalid_request_error', param: 'extra_body.google.thinking_config' });
    const unknown = await openaiFailure(() => gemini.client.chat.completions.create(params('gemini-2.5-flash', { extra_body: { google: { safety_settings: [] } } })));
    expect(unknown.status).toBe(400);
    expect(unknown.error).toMatchObject({ type: 'invalid_request_error', param: 'extra_body.google.safety_settings' });
    expect(gemini.gw.mock.requests).toHaveLength(0);
  });

  it('holds a thinking_budget to the reasoning cap (stage 1.7) like reasoning_effort', async () => {
    const org = await createOrg(gemini.gw, 'growth');
    await gemini.gw.repos.policies.replace(asOrgId(org.orgId), { max_reasoning_tokens: 2000 });
    await gemini.gw.service.runtime.invalidation.publish('policy', org.orgId);
    const capped = openaiClient(gemini.gw, '/v1/gemini', { apiKey: org.key });
    const budget = (thinking_budget: number) => params('gemini-2.5-flash', { extra_body: { google: { thinking_config: { thinking_budget } } } });

    const over = await openaiFailure(() => capped.chat.completions.create(budget(4096)));
    expect(over.status).toBe(403);
    expect(over.error).toMatchObject({ code: 'reasoning_cap_exceeded', param: 'extra_body.google.thinking_config.thinking_budget' });
    expect(gemini.gw.mock.requests).toHaveLength(0);

    await capped.chat.completions.create(budget(1024));
    expect(gemini.upstreamBody().generationConfig).toEqual({ thinkingConfig: { thinkingBudget: 1024 } });
  });
});
