import { GEMINI_IMPLICIT_CACHE_MIN_TOKENS, GEMINI_THOUGHT_TOKENS, mockReply, startMockProvider, type MockProvider } from './index';
import { parseSse, postJson } from './spec-helpers';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Gemini bodies are asserted field by field
type Json = Record<string, any>;

describe('mock provider: format C wire features (function calls, thinking, JSON mode, blocks, cache)', () => {
  let mock: MockProvider;
  let base: string;

  beforeAll(async () => {
    mock = await startMockProvider();
    base = `${mock.url}/v1beta/models`;
  });
  afterAll(() => mock.close());
  beforeEach(() => mock.reset());

  const generate = async (model: string, body: unknown) => {
    const res = await postJson(`${base}/${model}:generateContent?key=k`, body);
    return { status: res.status, json: res.json as Json };
  };
  const streamed = async (model: string, body: unknown): Promise<Json[]> => {
    const res = await fetch(`${base}/${model}:streamGenerateContent?alt=sse&key=k`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return parseSse(await res.text()).map((e) => JSON.parse(e.data) as Json);
  };
  const weather = {
    name: 'get_weather',
    parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' }, unit: { type: 'string', enum: ['c', 'f'] } } },
  };
  const time = { name: 'get_time', parameters: { type: 'OBJECT', properties: { zone: { type: 'STRING' } } } };
  const tools = [{ functionDeclarations: [weather, time] }];

  it('calls the declared functions the user names, in parallel, the first one signed by a thinking model', async () => {
    const { json } = await generate('gemini-2.5-flash', { contents: [{ role: 'user', parts: [{ text: 'use get_time then get_weather' }] }], tools });
    expect(json.candidates[0].finishReason).toBe('STOP');
    expect(json.candidates[0].content.parts).toEqual([
      { functionCall: { name: 'get_time', args: { zone: 'mock zone' } }, thoughtSignature: expect.any(String) },
      { functionCall: { name: 'get_weather', args: { city: 'mock city', days: 1, unit: 'c' } } },
    ]);
    const none = await generate('gemini-2.0-flash', { contents: [{ role: 'user', parts: [{ text: 'get_time' }] }], tools, toolConfig: { functionCallingConfig: { mode: 'NONE' } } });
    expect(none.json.candidates[0].content.parts).toEqual([{ text: mockReply('get_time') }]);
    const forced = await generate('gemini-2.0-flash', { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], tools, toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_time'] } } });
    expect(forced.json.candidates[0].content.parts).toEqual([{ functionCall: { name: 'get_time', args: { zone: 'mock zone' } } }]);
  });

  it('answers function responses, and refuses turns the real API refuses', async () => {
    const call = { role: 'model', parts: [{ functionCall: { name: 'get_time', args: {} } }, { functionCall: { name: 'get_weather', args: {} } }] };
    const user = { role: 'user', parts: [{ text: 'get_time and get_weather' }] };
    const answers = { role: 'user', parts: [{ functionResponse: { name: 'get_time', response: { t: 1 } } }, { functionResponse: { name: 'get_weather', response: { w: 2 } } }] };
    const ok = await generate('gemini-2.0-flash', { contents: [user, call, answers], tools });
    expect(ok.json.candidates[0].content.parts).toEqual([{ text: mockReply('get_time={"t":1} get_weather={"w":2}') }]);
    const short = await generate('gemini-2.0-flash', { contents: [user, call, { role: 'user', parts: [answers.parts[0]] }], tools });
    expect(short).toMatchObject({ status: 400, json: { error: { status: 'INVALID_ARGUMENT', message: expect.stringContaining('number of function response parts') } } });
    const orphan = await generate('gemini-2.0-flash', { contents: [user, answers] });
    expect(orphan.json.error.message).toContain('function response turn comes immediately after a function call turn');
    const empty = await generate('gemini-2.0-flash', { contents: [{ role: 'user', parts: [] }] });
    expect(empty.json.error.message).toContain('contents.parts must not be empty');
    const role = await generate('gemini-2.0-flash', { contents: [{ role: 'assistant', parts: [{ text: 'x' }] }] });
    expect(role.json.error.message).toBe('Please use a valid role: user, model.');
  });

  it('refuses an unsigned function-call turn of the current step on Gemini 3, as the real API does', async () => {
    const user = { role: 'user', parts: [{ text: 'get_time' }] };
    const answers = { role: 'user', parts: [{ functionResponse: { name: 'get_time', response: {} } }] };
    const unsigned = { role: 'model', parts: [{ functionCall: { name: 'get_time', args: {} } }] };
    const refused = await generate('gemini-3-flash-preview', { contents: [user, unsigned, answers], tools });
    expect(refused).toMatchObject({ status: 400, json: { error: { status: 'INVALID_ARGUMENT', message: expect.stringContaining('missing a thought_signature') } } });
    const signed = { role: 'model', parts: [{ functionCall: { name: 'get_time', args: {} }, thoughtSignature: 'c2ln' }] };
    expect((await generate('gemini-3-flash-preview', { contents: [user, signed, answers], tools })).status).toBe(200);
    // Earlier steps, and older models, are not checked.
    expect((await generate('gemini-3-flash-preview', { contents: [user, unsigned, answers, { role: 'model', parts: [{ text: 'ok' }] }, { role: 'user', parts: [{ text: 'next' }] }] })).status).toBe(200);
    expect((await generate('gemini-2.5-flash', { contents: [user, unsigned, answers], tools })).status).toBe(200);
  });

  it('reports thoughts, includes thought summaries when asked and stops thinking at budget 0', async () => {
    const contents = [{ role: 'user', parts: [{ text: 'think' }] }];
    const thinking = await generate('gemini-2.5-pro', { contents, generationConfig: { thinkingConfig: { includeThoughts: true } } });
    expect(thinking.json.candidates[0].content.parts).toEqual([{ text: 'Thinking about: think', thought: true }, { text: mockReply('think') }]);
    expect(thinking.json.usageMetadata.thoughtsTokenCount).toBe(GEMINI_THOUGHT_TOKENS);
    const off = await generate('gemini-2.5-flash', { contents, generationConfig: { thinkingConfig: { thinkingBudget: 0 } } });
    expect(off.json.usageMetadata.thoughtsTokenCount).toBeUndefined();
  });

  it('answers with logprobsResult when asked (one step per word, streamed per chunk) and gives call ids on request', async () => {
    const contents = [{ role: 'user', parts: [{ text: 'hi' }] }];
    const words = mockReply('hi').match(/\S+\s*/g) as string[];
    const whole = await generate('gemini-2.0-flash', { contents, generationConfig: { responseLogprobs: true, logprobs: 2 } });
    const result = whole.json.candidates[0].logprobsResult;
    expect(result.chosenCandidates.map((c: Json) => [c.token, c.logProbability])).toEqual(words.map((w, k) => [w, -0.25 * (k + 1)]));
    expect(result.topCandidates[0].candidates).toEqual([result.chosenCandidates[0], { token: 'alt1', tokenId: 9000, logProbability: -1.25 }]);
    const plain = await generate('gemini-2.0-flash', { contents });
    expect(plain.json.candidates[0].logprobsResult).toBeUndefined();
    const chunks = await streamed('gemini-2.0-flash', { contents, generationConfig: { responseLogprobs: true } });
    expect(chunks.map((c) => c.candidates[0].logprobsResult.chosenCandidates.map((t: Json) => t.token))).toEqual(words.map((w) => [w]));
    expect(chunks[0].candidates[0].logprobsResult.topCandidates).toBeUndefined();
    const call = await generate('gemini-2.0-flash', { contents: [{ role: 'user', parts: [{ text: 'get_time mock:call-ids' }] }], tools });
    expect(call.json.candidates[0].content.parts).toEqual([{ functionCall: { name: 'get_time', args: { zone: 'mock zone' }, id: expect.stringMatching(/^mock-fc-\d+-0$/) } }]);
  });

  it('answers JSON mode with JSON following the schema, and several candidates', async () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' }, score: { type: 'number' } } };
    const { json } = await generate('gemini-2.0-flash', { contents: [{ parts: [{ text: 'rate' }] }], generationConfig: { responseMimeType: 'application/json', responseJsonSchema: schema, candidateCount: 2 } });
    expect(json.candidates.map((c: Json) => [c.index, JSON.parse(c.content.parts[0].text)])).toEqual([
      [0, { answer: 'mock answer', score: 1 }],
      [1, { answer: 'mock answer', score: 1 }],
    ]);
  });

  it('blocks a prompt with promptFeedback and stops a candidate for safety, streamed too', async () => {
    const blocked = await generate('gemini-2.0-flash', { contents: [{ parts: [{ text: 'mock:block=SAFETY' }] }] });
    expect(blocked.json.candidates).toBeUndefined();
    expect(blocked.json.promptFeedback.blockReason).toBe('SAFETY');
    expect(blocked.json.usageMetadata.promptTokenCount).toBeGreaterThan(0);
    const chunks = await streamed('gemini-2.0-flash', { contents: [{ parts: [{ text: 'tell me mock:finish=SAFETY' }] }] });
    const last = chunks[chunks.length - 1];
    expect(last.candidates[0].finishReason).toBe('SAFETY');
    expect(last.candidates[0].safetyRatings).toEqual(expect.arrayContaining([expect.objectContaining({ blocked: true })]));
    const malformed = await generate('gemini-2.0-flash', { contents: [{ parts: [{ text: 'mock:finish=MALFORMED_FUNCTION_CALL' }] }] });
    expect(malformed.json.candidates).toEqual([{ finishReason: 'MALFORMED_FUNCTION_CALL', index: 0 }]);
  });

  it('serves a repeated prompt prefix from the implicit cache', async () => {
    const system = { parts: [{ text: 'x'.repeat(GEMINI_IMPLICIT_CACHE_MIN_TOKENS * 4) }] };
    const first = { role: 'user', parts: [{ text: 'one' }] };
    const cold = await generate('gemini-2.5-flash', { systemInstruction: system, contents: [first] });
    expect(cold.json.usageMetadata.cachedContentTokenCount).toBeUndefined();
    const warm = await generate('gemini-2.5-flash', { systemInstruction: system, contents: [first, { role: 'model', parts: [{ text: 'ok' }] }, { role: 'user', parts: [{ text: 'two' }] }] });
    expect(warm.json.usageMetadata.cachedContentTokenCount).toBe(Math.ceil((GEMINI_IMPLICIT_CACHE_MIN_TOKENS * 4 + 3) / 4));
    // A prefix below the cache's minimum is never served from it, however often it repeats.
    await generate('gemini-2.5-flash', { contents: [first] });
    const small = await generate('gemini-2.5-flash', { contents: [first] });
    expect(small.json.usageMetadata.cachedContentTokenCount).toBeUndefined();
  });
});
