import { GatewayError } from '@svc/platform';
import { providerRegistry, resolveBaseUrl } from '../providers/registry';
import { resolveRoute } from '../providers/routing';
import { buildChatCompletionsRequest, needsResponseTranslation } from './build';
import { buildGeminiRequest, geminiUrl, toGeminiRequest } from './gemini';

const gemini = providerRegistry.get('gemini');
if (!gemini) throw new Error('gemini missing');

describe('Gemini URL and credential', () => {
  it('calls generateContent with the key as the query parameter', () => {
    const request = buildGeminiRequest({
      provider: gemini,
      apiKey: 'AIza-test',
      clientHeaders: { 'x-svc-api-key': 'svc_sk_x', authorization: 'Bearer AIza-test', 'user-agent': 'openai-python/1.99' },
      body: { model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'Hi' }] },
    });
    expect(request.url).toBe('https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:generateContent?key=AIza-test');
    expect(request.logUrl).toBe('https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:generateContent?key=***');
    expect(request.stream).toBe(false);
    expect(request.headers).toEqual({
      'user-agent': 'openai-python/1.99',
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(String(request.body))),
    });
  });

  it('streams with streamGenerateContent?alt=sse', () => {
    const baseUrl = resolveBaseUrl(gemini, { gemini: 'http://127.0.0.1:4010' });
    const request = buildGeminiRequest({
      provider: gemini,
      baseUrl,
      apiKey: 'k',
      clientHeaders: {},
      body: { model: 'google/gemini-2.5-flash', messages: [{ role: 'user', content: 'Hi' }], stream: true },
      upstreamModel: 'gemini-2.5-flash',
    });
    expect(request.url).toBe('http://127.0.0.1:4010/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse&key=k');
    expect(request.stream).toBe(true);
    expect(request.headers.accept).toBe('text/event-stream');
  });

  it('accepts models/ and tunedModels/ resource names and refuses path tricks', () => {
    expect(geminiUrl('https://g.example', 'models/gemini-2.0-flash', false).pathname).toBe('/v1beta/models/gemini-2.0-flash:generateContent');
    expect(geminiUrl('https://g.example', 'tunedModels/my-tune-42', false).pathname).toBe('/v1beta/tunedModels/my-tune-42:generateContent');
    expect(() => geminiUrl('https://g.example', 'gemini/../../x', false)).toThrow(GatewayError);
    expect(() => geminiUrl('https://g.example', 'gemini:embedContent', false)).toThrow(GatewayError);
  });

  it('is what the chat adapter picks for provider C, which needs response translation', () => {
    const route = resolveRoute({ endpointProvider: 'google', model: 'gemini-2.0-flash' });
    const request = buildChatCompletionsRequest({
      provider: route.provider,
      apiKey: 'k',
      clientHeaders: {},
      body: { model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'Hi' }] },
      upstreamModel: route.upstreamModel,
    });
    expect(request.url).toContain(':generateContent?key=k');
    expect(needsResponseTranslation(route.provider)).toBe(true);
  });
});

describe('format A → generate-content', () => {
  it('maps roles, system messages and generation parameters', () => {
    const translated = toGeminiRequest({
      model: 'gemini-2.0-flash',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'developer', content: [{ type: 'text', text: 'Answer in French.' }] },
        { role: 'user', content: 'Capital of France?' },
        { role: 'assistant', content: 'Paris.' },
        { role: 'user', content: [{ type: 'text', text: 'And Italy?' }] },
      ],
      temperature: 0.3,
      top_p: 0.9,
      max_tokens: 100,
      max_completion_tokens: 200,
      stop: 'END',
      n: 2,
      presence_penalty: 0.1,
      frequency_penalty: 0.2,
      seed: 7,
      response_format: { type: 'json_object' },
      user: 'dropped',
      logprobs: true,
      stream_options: { include_usage: true },
    });
    expect(translated).toEqual({
      systemInstruction: { parts: [{ text: 'You are terse.' }, { text: 'Answer in French.' }] },
      contents: [
        { role: 'user', parts: [{ text: 'Capital of France?' }] },
        { role: 'model', parts: [{ text: 'Paris.' }] },
        { role: 'user', parts: [{ text: 'And Italy?' }] },
      ],
      generationConfig: {
        temperature: 0.3,
        topP: 0.9,
        maxOutputTokens: 200,
        stopSequences: ['END'],
        candidateCount: 2,
        presencePenalty: 0.1,
        frequencyPenalty: 0.2,
        seed: 7,
        responseMimeType: 'application/json',
        responseLogprobs: true,
      },
    });
  });

  it('maps a JSON schema response format and a stop list', () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
    const translated = toGeminiRequest({
      messages: [{ role: 'user', content: 'x' }],
      stop: ['a', 'b'],
      max_tokens: 50,
      response_format: { type: 'json_schema', json_schema: { name: 'city', strict: true, schema } },
    });
    expect(translated.generationConfig).toEqual({
      maxOutputTokens: 50,
      stopSequences: ['a', 'b'],
      responseMimeType: 'application/json',
      responseJsonSchema: schema,
    });
  });

  it('translates tools, tool choice, tool calls and tool results', () => {
    const parameters = { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] };
    const translated = toGeminiRequest({
      messages: [
        { role: 'user', content: 'Weather and time in Boston?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"location":"Boston, MA"}' },
              extra_content: { google: { thought_signature: 'sig-1' } },
            },
            { id: 'call_2', type: 'function', function: { name: 'get_time', arguments: '{"timezone":"America/New_York"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '{"temperature":22,"unit":"celsius"}' },
        { role: 'tool', tool_call_id: 'call_2', content: '14:05' },
      ],
      tools: [
        { type: 'function', function: { name: 'get_weather', description: 'Current weather', parameters } },
        { type: 'function', function: { name: 'get_time' } },
      ],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
    });
    expect(translated.contents).toEqual([
      { role: 'user', parts: [{ text: 'Weather and time in Boston?' }] },
      {
        role: 'model',
        parts: [
          { functionCall: { name: 'get_weather', args: { location: 'Boston, MA' }, id: 'call_1' }, thoughtSignature: 'sig-1' },
          { functionCall: { name: 'get_time', args: { timezone: 'America/New_York' }, id: 'call_2' } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'get_weather', response: { temperature: 22, unit: 'celsius' }, id: 'call_1' } },
          { functionResponse: { name: 'get_time', response: { content: '14:05' }, id: 'call_2' } },
        ],
      },
    ]);
    expect(translated.tools).toEqual([
      {
        functionDeclarations: [
          { name: 'get_weather', description: 'Current weather', parametersJsonSchema: parameters },
          { name: 'get_time' },
        ],
      },
    ]);
    expect(translated.toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } });
  });

  it.each([
    ['auto', 'AUTO'],
    ['none', 'NONE'],
    ['required', 'ANY'],
  ])('maps tool_choice %s to %s', (choice, mode) => {
    expect(toGeminiRequest({ messages: [], tool_choice: choice }).toolConfig).toEqual({ functionCallingConfig: { mode } });
  });

  it('turns images and audio into inline data or file references', () => {
    const translated = toGeminiRequest({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in these?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.webp?size=large', detail: 'high' } },
            { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'mp3' } },
          ],
        },
      ],
    });
    expect(translated.contents[0].parts).toEqual([
      { text: 'What is in these?' },
      { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
      { fileData: { mimeType: 'image/webp', fileUri: 'https://example.com/cat.webp?size=large' } },
      { inlineData: { mimeType: 'audio/mp3', data: 'UklGRg==' } },
    ]);
  });

  it('merges consecutive turns of one role and keeps non-JSON tool arguments', () => {
    const translated = toGeminiRequest({
      messages: [
        { role: 'user', content: 'a' },
        { role: 'user', content: 'b' },
        { role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: 'not json' } }] },
      ],
    });
    expect(translated.contents).toEqual([
      { role: 'user', parts: [{ text: 'a' }, { text: 'b' }] },
      { role: 'model', parts: [{ functionCall: { name: 'f', args: { arguments: 'not json' }, id: 'c' } }] },
    ]);
  });

  it('answers 400 for what it cannot translate', () => {
    expect(() => toGeminiRequest({ messages: 'hi' })).toThrow(GatewayError);
    expect(() => toGeminiRequest({ messages: [{ role: 'wizard', content: 'x' }] })).toThrow(/role 'wizard'/);
    expect(() => toGeminiRequest({ messages: [{ role: 'tool', tool_call_id: 'unknown', content: 'x' }] })).toThrow(/tool_call_id/);
    expect(() => toGeminiRequest({ messages: [{ role: 'user', content: [{ type: 'hologram' }] }] })).toThrow(/hologram/);
  });

  it.each([
    [[5], /content\[0\] must be an object/],
    [[{ type: 'text', text: 'ok' }, { type: 'text', text: 7 }], /content\[1\] of type text needs a string `text`/],
    [[{ type: 'image_url', image_url: 5 }], /content\[0\] of type image_url needs/],
    [[{ type: 'image_url', image_url: { detail: 'high' } }], /image_url.url/],
    [[{ type: 'input_audio', input_audio: { format: 'mp3' } }], /input_audio.data/],
    [[{ type: 'file', file: {} }], /file.file_data/],
  ])('refuses a content part it cannot translate (%j) instead of dropping it', (content, message) => {
    let thrown: unknown;
    try {
      toGeminiRequest({ messages: [{ role: 'user', content }] });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(GatewayError);
    expect((thrown as GatewayError).status).toBe(400);
    expect((thrown as GatewayError).body).toMatchObject({ code: 'invalid_request', param: 'messages', message: expect.stringMatching(message) });
  });
});
