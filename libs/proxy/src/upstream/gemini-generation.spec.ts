import { GatewayError } from '@svc/platform';
import { toGeminiRequest } from './gemini';

const user = [{ role: 'user', content: 'Hi' }];
const config = (extra: Record<string, unknown>, model: string) => toGeminiRequest({ model, messages: user, ...extra }, model).generationConfig;

function refusal(call: () => unknown): GatewayError {
  try {
    call();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('not refused');
}

describe('reasoning_effort → thinkingConfig (Google OpenAI-compatibility mapping)', () => {
  it.each([
    ['none', 0],
    ['minimal', 1024],
    ['low', 1024],
    ['medium', 8192],
    ['high', 24576],
    ['LOW', 1024],
  ])('Gemini 2.5 Flash: %s is a thinking budget of %d', (effort, budget) => {
    expect(config({ reasoning_effort: effort }, 'gemini-2.5-flash')).toEqual({ thinkingConfig: { thinkingBudget: budget } });
    expect(config({ reasoning_effort: effort }, 'models/gemini-2.5-flash-lite')).toEqual({ thinkingConfig: { thinkingBudget: budget } });
  });

  it.each([
    ['gemini-3-flash-preview', 'minimal', 'MINIMAL'],
    ['gemini-3-flash-preview', 'low', 'LOW'],
    ['gemini-3-flash-preview', 'medium', 'MEDIUM'],
    ['gemini-3-flash-preview', 'high', 'HIGH'],
    ['gemini-3.1-pro-preview', 'low', 'LOW'],
    ['gemini-3.1-pro-preview', 'medium', 'MEDIUM'],
    ['gemini-3-pro-preview', 'high', 'HIGH'],
  ])('%s: %s is thinking level %s', (model, effort, level) => {
    expect(config({ reasoning_effort: effort }, model)).toEqual({ thinkingConfig: { thinkingLevel: level } });
  });

  it.each([
    ['gemini-3-flash-preview', 'none', 'minimal'],
    ['gemini-3-pro-preview', 'none', 'low'],
    ['gemini-3.1-pro-preview', 'minimal', 'low'],
  ])('%s: %s is refused, naming its lowest effort %s (Gemini 3 cannot stop thinking; the cap valued the effort sent)', (model, effort, lowest) => {
    const error = refusal(() => config({ reasoning_effort: effort }, model));
    expect(error.status).toBe(400);
    expect(error.body).toMatchObject({ type: 'invalid_request_error', param: 'reasoning_effort', message: expect.stringContaining(`send ${lowest}`) });
    const viaObject = refusal(() => config({ reasoning: { effort } }, model));
    expect(viaObject.body).toMatchObject({ param: 'reasoning.effort' });
  });

  it('refuses none on Gemini 2.5 Pro, which cannot turn thinking off, before anything is sent', () => {
    const error = refusal(() => config({ reasoning_effort: 'none' }, 'gemini-2.5-pro'));
    expect(error.status).toBe(400);
    expect(error.body).toMatchObject({ type: 'invalid_request_error', code: 'invalid_request', param: 'reasoning_effort', message: expect.stringContaining('cannot turn thinking off') });
    expect(config({ reasoning_effort: 'minimal' }, 'gemini-2.5-pro')).toEqual({ thinkingConfig: { thinkingBudget: 1024 } });
  });

  it('refuses an unknown value naming the parameter', () => {
    for (const effort of ['xhigh', 'max', 3, '']) {
      const error = refusal(() => config({ reasoning_effort: effort }, 'gemini-2.5-flash'));
      expect(error.status).toBe(400);
      expect(error.body).toMatchObject({ type: 'invalid_request_error', param: 'reasoning_effort' });
    }
  });

  it('sends nothing when absent, and nothing to models from before thinking', () => {
    expect(config({}, 'gemini-2.5-flash')).toBeUndefined();
    expect(config({ reasoning_effort: null }, 'gemini-2.5-flash')).toBeUndefined();
    expect(config({ reasoning_effort: 'none' }, 'gemini-2.0-flash')).toBeUndefined();
    expect(config({ reasoning_effort: 'high' }, 'gemini-1.5-pro')).toBeUndefined();
  });

  it('keeps the other generation parameters beside the thinking config', () => {
    expect(config({ reasoning_effort: 'low', temperature: 0.2, max_completion_tokens: 50 }, 'gemini-2.5-flash')).toEqual({
      temperature: 0.2,
      maxOutputTokens: 50,
      thinkingConfig: { thinkingBudget: 1024 },
    });
  });
});

describe('reasoning: {effort} (the object form), read with the reasoning cap\'s precedence', () => {
  it('maps reasoning.effort as reasoning_effort, on Gemini 2.5 and 3', () => {
    expect(config({ reasoning: { effort: 'medium' } }, 'gemini-2.5-flash')).toEqual({ thinkingConfig: { thinkingBudget: 8192 } });
    expect(config({ reasoning: { effort: 'HIGH', summary: 'auto' } }, 'gemini-3-flash-preview')).toEqual({ thinkingConfig: { thinkingLevel: 'HIGH' } });
    expect(config({ reasoning: { effort: null } }, 'gemini-2.5-flash')).toBeUndefined();
  });

  it('lets reasoning_effort win over reasoning.effort, as stage 1.7 does', () => {
    expect(config({ reasoning_effort: 'low', reasoning: { effort: 'high' } }, 'gemini-2.5-flash')).toEqual({ thinkingConfig: { thinkingBudget: 1024 } });
  });

  it('refuses a bad reasoning.effort naming reasoning.effort', () => {
    const unknown = refusal(() => config({ reasoning: { effort: 'xhigh' } }, 'gemini-2.5-flash'));
    expect(unknown.body).toMatchObject({ type: 'invalid_request_error', param: 'reasoning.effort' });
    const off = refusal(() => config({ reasoning: { effort: 'none' } }, 'gemini-2.5-pro'));
    expect(off.body).toMatchObject({ param: 'reasoning.effort', message: expect.stringContaining('cannot turn thinking off') });
  });
});

describe('extra_body.google (Google\'s OpenAI-compatible extra fields)', () => {
  const google = (fields: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ extra_body: { google: fields }, ...extra });
  const request = (extra: Record<string, unknown>, model = 'gemini-2.5-flash') => toGeminiRequest({ model, messages: user, ...extra }, model);

  it('sends thinking_config 1:1 as generationConfig.thinkingConfig', () => {
    expect(config(google({ thinking_config: { thinking_budget: 800, include_thoughts: true } }), 'gemini-2.5-flash')).toEqual({
      thinkingConfig: { thinkingBudget: 800, includeThoughts: true },
    });
    expect(config(google({ thinking_config: { thinking_budget: -1 } }), 'gemini-2.5-pro')).toEqual({ thinkingConfig: { thinkingBudget: -1 } });
    expect(config(google({ thinking_config: { thinking_level: 'low' } }), 'gemini-3-pro-preview')).toEqual({ thinkingConfig: { thinkingLevel: 'LOW' } });
    expect(config(google({ thinking_config: {} }), 'gemini-2.5-flash')).toBeUndefined();
  });

  it('adds include_thoughts to the thinking config of reasoning_effort or reasoning.effort', () => {
    const thoughts = google({ thinking_config: { include_thoughts: true } });
    expect(config({ ...thoughts, reasoning_effort: 'low' }, 'gemini-2.5-flash')).toEqual({ thinkingConfig: { thinkingBudget: 1024, includeThoughts: true } });
    expect(config({ ...thoughts, reasoning: { effort: 'high' } }, 'gemini-3-flash-preview')).toEqual({ thinkingConfig: { thinkingLevel: 'HIGH', includeThoughts: true } });
  });

  it('refuses reasoning_effort (or reasoning.effort) with a thinking budget or level, as Google does', () => {
    for (const extra of [{ reasoning_effort: 'low' }, { reasoning: { effort: 'low' } }]) {
      for (const thinking of [{ thinking_budget: 0 }, { thinking_level: 'high' }]) {
        const error = refusal(() => config({ ...google({ thinking_config: thinking }), ...extra }, 'gemini-2.5-flash'));
        expect(error.status).toBe(400);
        expect(error.body).toMatchObject({ type: 'invalid_request_error', param: 'extra_body.google.thinking_config', message: expect.stringContaining('not both') });
      }
    }
  });

  it('sends cached_content as the request\'s cachedContent', () => {
    expect(request(google({ cached_content: 'cachedContents/abc123' })).cachedContent).toBe('cachedContents/abc123');
    expect(request({}).cachedContent).toBeUndefined();
  });

  it.each([
    [google({ thinking_config: { thinking_budget: 100, thinking_level: 'low' } }), 'extra_body.google.thinking_config'],
    [google({ thinking_config: { thinking_budget: 1.5 } }), 'extra_body.google.thinking_config.thinking_budget'],
    [google({ thinking_config: { thinking_budget: -2 } }), 'extra_body.google.thinking_config.thinking_budget'],
    [google({ thinking_config: { thinking_budget: '800' } }), 'extra_body.google.thinking_config.thinking_budget'],
    [google({ thinking_config: { thinking_level: 'xhigh' } }), 'extra_body.google.thinking_config.thinking_level'],
    [google({ thinking_config: { include_thoughts: 'yes' } }), 'extra_body.google.thinking_config.include_thoughts'],
    [google({ thinking_config: { thinkingBudget: 800 } }), 'extra_body.google.thinking_config.thinkingBudget'],
    [google({ thinking_config: 'low' }), 'extra_body.google.thinking_config'],
    [google({ cached_content: '' }), 'extra_body.google.cached_content'],
    [google({ safety_settings: [] }), 'extra_body.google.safety_settings'],
    [{ extra_body: { google: 'x' } }, 'extra_body.google'],
    [{ extra_body: { thinking_config: {} } }, 'extra_body.thinking_config'],
    [{ extra_body: 'x' }, 'extra_body'],
    [{ google: { thinking_config: { thinking_budget: 0 } } }, 'google'],
  ])('refuses %j with 400 naming %s', (extra, param) => {
    const error = refusal(() => request(extra));
    expect(error.status).toBe(400);
    expect(error.body).toMatchObject({ type: 'invalid_request_error', param });
  });
});

describe('logprobs / top_logprobs → responseLogprobs / logprobs', () => {
  it('asks Gemini for the chosen tokens, and for the top candidates when top_logprobs is given', () => {
    expect(config({ logprobs: true }, 'gemini-2.0-flash')).toEqual({ responseLogprobs: true });
    expect(config({ logprobs: true, top_logprobs: 3 }, 'gemini-2.0-flash')).toEqual({ responseLogprobs: true, logprobs: 3 });
    expect(config({ logprobs: true, top_logprobs: 0 }, 'gemini-2.0-flash')).toEqual({ responseLogprobs: true, logprobs: 0 });
    expect(config({ logprobs: false }, 'gemini-2.0-flash')).toBeUndefined();
  });

  it.each([
    [{ top_logprobs: 2 }, /needs `logprobs: true`/],
    [{ logprobs: false, top_logprobs: 2 }, /needs `logprobs: true`/],
    [{ logprobs: true, top_logprobs: 21 }, /0 to 20/],
    [{ logprobs: true, top_logprobs: 1.5 }, /0 to 20/],
    [{ logprobs: true, top_logprobs: '2' }, /0 to 20/],
  ])('refuses %j naming top_logprobs', (extra, message) => {
    const error = refusal(() => config(extra, 'gemini-2.0-flash'));
    expect(error.status).toBe(400);
    expect(error.body).toMatchObject({ type: 'invalid_request_error', param: 'top_logprobs', message: expect.stringMatching(message) });
  });
});

describe('function-call ids', () => {
  const history = (id: string) => [
    { role: 'user', content: 'time?' },
    { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'get_time', arguments: '{}' } }] },
    { role: 'tool', tool_call_id: id, content: '12:00' },
  ];

  it("echoes Gemini's functionCall.id on the call and on its functionResponse", () => {
    const { contents } = toGeminiRequest({ messages: history('fc-7f3a') }, 'gemini-2.5-flash');
    expect(contents[1].parts).toEqual([{ functionCall: { name: 'get_time', args: {}, id: 'fc-7f3a' } }]);
    expect(contents[2].parts).toEqual([{ functionResponse: { name: 'get_time', response: { content: '12:00' }, id: 'fc-7f3a' } }]);
  });

  it('sends no id the gateway made up for a call Gemini gave none', () => {
    const { contents } = toGeminiRequest({ messages: history('call_0123456789abcdef01234567') }, 'gemini-2.5-flash');
    expect(contents[1].parts).toEqual([{ functionCall: { name: 'get_time', args: {} } }]);
    expect(contents[2].parts).toEqual([{ functionResponse: { name: 'get_time', response: { content: '12:00' } } }]);
  });
});
