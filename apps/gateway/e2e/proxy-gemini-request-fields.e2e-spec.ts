import OpenAI from 'openai';
import { mockReply } from '@svc/mock-provider';
import { GatewayHarness, Json, openaiClient, openaiFailure, postJson, PROVIDER_KEY, startGateway } from './harness';

type Line = Record<string, unknown>;

/**
 * Provider C, whole answers (docs/gateway-providers.md "Provider C translation"): every generation field the
 * translation maps reaches Gemini's generationConfig, a field of the wrong type is refused with 400
 * naming it (never dropped without a word), the key travels only as `?key=` upstream and never comes
 * back or reaches the logs, and a Gemini answer without candidates is still a format-A answer with a choice.
 */
describe('provider C (gemini): request fields, key handling and empty answers', () => {
  const lines: Line[] = [];
  const logs = { write: (chunk: string) => chunk.split('\n').filter((t) => t.trim()).forEach((t) => lines.push(JSON.parse(t) as Line)) };
  let gw: GatewayHarness;
  let client: OpenAI;
  const upstream = (): Json => gw.mock.requests.at(-1) as unknown as Json;
  const chatUrl = () => `${gw.url}/v1/gemini/chat/completions`;
  const headers = () => ({ 'X-SVC-API-Key': gw.key, 'X-Provider-Key': PROVIDER_KEY });

  beforeAll(async () => {
    gw = await startGateway({ env: { LOG_LEVEL: 'debug', ACCESS_LOG: 'true' }, logs });
    client = openaiClient(gw, '/v1/gemini');
  });
  afterAll(() => gw.stop());
  beforeEach(() => gw.mock.reset());

  it('maps sampling, length, stop, n, seed and penalties, system turns anywhere, images and a multi-turn history', async () => {
    const png = Buffer.from('png bytes').toString('base64');
    const completion = await client.chat.completions.create({
      model: 'gemini-2.5-flash',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'First question' },
        { role: 'assistant', content: 'First answer' },
        { role: 'developer', content: 'Answer in English.' },
        { role: 'user', content: [{ type: 'text', text: 'Compare' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } }] },
        { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/cat.webp', detail: 'high' } }] },
      ],
      temperature: 0.4,
      top_p: 0.8,
      max_tokens: 999,
      max_completion_tokens: 60,
      stop: ['END', 'STOP'],
      n: 2,
      seed: 42,
      presence_penalty: 0.5,
      frequency_penalty: -0.5,
      reasoning_effort: 'medium',
    });
    const sent = upstream();
    expect(sent.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(sent.body.systemInstruction).toEqual({ parts: [{ text: 'Be brief.' }, { text: 'Answer in English.' }] });
    // Consecutive user messages merge into one turn; the https image is a file reference typed by its extension.
    expect(sent.body.contents).toEqual([
      { role: 'user', parts: [{ text: 'First question' }] },
      { role: 'model', parts: [{ text: 'First answer' }] },
      { role: 'user', parts: [{ text: 'Compare' }, { inlineData: { mimeType: 'image/png', data: png } }, { fileData: { mimeType: 'image/webp', fileUri: 'https://example.com/cat.webp' } }] },
    ]);
    expect(sent.body.generationConfig).toEqual({
      temperature: 0.4,
      topP: 0.8,
      maxOutputTokens: 60,
      candidateCount: 2,
      presencePenalty: 0.5,
      frequencyPenalty: -0.5,
      seed: 42,
      stopSequences: ['END', 'STOP'],
      thinkingConfig: { thinkingBudget: 8192 },
    });
    expect(completion.choices.map((c) => [c.index, c.message.content, c.finish_reason])).toEqual([
      [0, mockReply('Compare'), 'stop'],
      [1, `${mockReply('Compare')} (2)`, 'stop'],
    ]);
    expect(completion.usage?.completion_tokens_details?.reasoning_tokens).toBeGreaterThan(0);
  });

  it('takes null as unset and a text response_format as no JSON mode', async () => {
    const res = await postJson(chatUrl(), { model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'hi' }], top_p: null, seed: null, n: null, stop: null, response_format: { type: 'text' } }, headers());
    expect(res.status).toBe(200);
    expect(upstream().body.generationConfig).toBeUndefined();
  });

  it.each([
    [{ n: '2' }, 'n', '`n` must be an integer'],
    [{ n: 1.5 }, 'n', '`n` must be an integer'],
    [{ top_p: '0.5' }, 'top_p', '`top_p` must be a number'],
    [{ top_k: 2.5 }, 'top_k', '`top_k` must be an integer'],
    [{ seed: '7' }, 'seed', '`seed` must be an integer'],
    [{ presence_penalty: true }, 'presence_penalty', '`presence_penalty` must be a number'],
    [{ frequency_penalty: [1] }, 'frequency_penalty', '`frequency_penalty` must be a number'],
    [{ stop: [1, 'a'] }, 'stop', '`stop` must be a string or an array of strings'],
    [{ stop: { at: 'x' } }, 'stop', '`stop` must be a string or an array of strings'],
    [{ response_format: { type: 'xml' } }, 'response_format', '`response_format.type` must be text, json_object or json_schema for this provider'],
    [{ response_format: 'json_object' }, 'response_format', '`response_format.type` must be text, json_object or json_schema for this provider'],
  ])('refuses %j with 400 naming the parameter, sending nothing', async (extra, param, message) => {
    const error = await openaiFailure(() =>
      client.chat.completions.create({ model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'hi' }], ...(extra as object) } as OpenAI.ChatCompletionCreateParamsNonStreaming),
    );
    expect([error.status, error.type, error.code, error.param, error.message]).toEqual([400, 'invalid_request_error', 'invalid_request', param, `400 ${message}`]);
    expect(gw.mock.requests).toHaveLength(0);
  });

  it('sends the key only as ?key=, and never shows it to the client or in the logs', async () => {
    const res = await postJson(`${chatUrl()}?api_key=${gw.key}`, { model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'hi' }] }, { 'X-Provider-Key': PROVIDER_KEY });
    expect(res.status).toBe(200);
    const sent = upstream();
    expect(sent.query).toEqual({ key: PROVIDER_KEY });
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.headers['x-goog-api-key']).toBeUndefined();
    expect(JSON.stringify([res.body, [...res.headers.entries()]])).not.toContain(PROVIDER_KEY);

    // Gemini quoting its own URL in an error: relayed in format A with the key redacted.
    gw.mock.setBehavior({ fail: { status: 400, body: { error: { code: 400, message: `Bad request to /v1beta/models/x:generateContent?key=${PROVIDER_KEY}`, status: 'INVALID_ARGUMENT' } } } });
    const failed = await postJson(chatUrl(), { model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'hi' }] }, headers());
    expect(failed.status).toBe(400);
    expect(failed.body.error.message).toBe('Bad request to /v1beta/models/x:generateContent?key=[REDACTED]');
    // A connection error names no URL.
    gw.mock.setBehavior({ drop: {} });
    const dropped = await postJson(chatUrl(), { model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'hi' }] }, headers());
    expect([dropped.status, dropped.body.error.code]).toEqual([502, 'upstream_unavailable']);
    expect(JSON.stringify(dropped.body)).not.toContain(PROVIDER_KEY);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(lines.filter((l) => l.msg === 'request').length).toBeGreaterThanOrEqual(3);
    expect(JSON.stringify(lines)).not.toContain(PROVIDER_KEY);
  });

  it('answers a Gemini turn without candidates (and no block reason) with one empty choice, never choices: []', async () => {
    gw.mock.setBehavior({ fail: { status: 200, body: { usageMetadata: { promptTokenCount: 7, totalTokenCount: 7 }, modelVersion: 'gemini-2.0-flash', responseId: 'empty1' } } });
    const completion = await client.chat.completions.create({ model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'hi' }] });
    expect(completion.id).toBe('chatcmpl-empty1');
    expect(completion.choices).toEqual([{ index: 0, message: { role: 'assistant', content: null, refusal: null }, finish_reason: 'stop', logprobs: null }]);
    expect(completion.usage).toEqual({ prompt_tokens: 7, completion_tokens: 0, total_tokens: 7 });
  });

  it('maps each candidate and the usage Gemini reports, cached and thinking tokens included', async () => {
    gw.mock.setBehavior({
      fail: {
        status: 200,
        body: {
          candidates: [
            { content: { role: 'model', parts: [{ text: 'cut' }] }, finishReason: 'MAX_TOKENS' },
            { content: { role: 'model', parts: [{ text: 'quoted' }] }, finishReason: 'RECITATION', index: 1 },
            { content: { role: 'model', parts: [{ functionCall: { name: 'lookup', args: { q: 'x' } } }] }, finishReason: 'STOP', index: 2 },
          ],
          usageMetadata: { promptTokenCount: 40, cachedContentTokenCount: 32, candidatesTokenCount: 9, thoughtsTokenCount: 5, totalTokenCount: 54 },
        },
      },
    });
    const res = await postJson(chatUrl(), { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }], n: 3 }, headers());
    expect(res.status).toBe(200);
    const choices = res.body.choices as Json[];
    expect(choices.map((c) => [c.index, c.message.content, c.finish_reason, c.native_finish_reason])).toEqual([
      [0, 'cut', 'length', 'MAX_TOKENS'],
      [1, 'quoted', 'content_filter', 'RECITATION'],
      [2, null, 'tool_calls', 'STOP'],
    ]);
    expect(choices[2].message.tool_calls).toEqual([{ id: expect.stringMatching(/^call_[0-9a-f]{24}$/), type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } }]);
    expect(res.body.usage).toEqual({
      prompt_tokens: 40,
      completion_tokens: 14,
      total_tokens: 54,
      prompt_tokens_details: { cached_tokens: 32 },
      completion_tokens_details: { reasoning_tokens: 5 },
    });
  });
});
