import { countTokens, GEMINI_EMBEDDING_DIMENSIONS, GEMINI_THOUGHT_TOKENS, mockReply, startMockProvider, type MockProvider } from './index';
import { getJson, parseSse, postJson } from './spec-helpers';

interface GeminiChunk {
  candidates: { content: { role: string; parts: { text: string }[] }; finishReason?: string; index: number }[];
  usageMetadata: { promptTokenCount: number; candidatesTokenCount?: number; totalTokenCount: number };
  modelVersion: string;
}

describe('mock provider: format C (Gemini generate-content)', () => {
  let mock: MockProvider;
  let base: string;

  beforeAll(async () => {
    mock = await startMockProvider();
    base = `${mock.url}/v1beta/models`;
  });

  afterAll(async () => {
    await mock.close();
  });

  beforeEach(() => mock.reset());

  const request = {
    systemInstruction: { parts: [{ text: 'Answer briefly.' }] },
    contents: [
      { role: 'user', parts: [{ text: 'first' }] },
      { role: 'model', parts: [{ text: 'ok' }] },
      { role: 'user', parts: [{ text: 'What is Gemini?' }] },
    ],
    generationConfig: { temperature: 0.2, maxOutputTokens: 100, stopSequences: ['END'] },
    tools: [{ functionDeclarations: [{ name: 'lookup', parameters: { type: 'OBJECT', properties: {} } }] }],
  };
  const promptTokens = Math.ceil(('Answer briefly.' + 'first' + 'ok' + 'What is Gemini?').length / 4);
  const reply = mockReply('What is Gemini?');

  it('answers generateContent with candidates, usageMetadata and modelVersion', async () => {
    const res = await postJson(`${base}/gemini-2.0-flash:generateContent?key=AIza-test`, request);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      candidates: [{ content: { parts: [{ text: reply }], role: 'model' }, finishReason: 'STOP', index: 0 }],
      usageMetadata: {
        promptTokenCount: promptTokens,
        candidatesTokenCount: countTokens(reply),
        totalTokenCount: promptTokens + countTokens(reply),
        promptTokensDetails: [{ modality: 'TEXT', tokenCount: promptTokens }],
      },
      modelVersion: 'gemini-2.0-flash',
      responseId: expect.any(String),
    });
  });

  it('records the translated request so the gateway translation can be asserted', async () => {
    await postJson(`${base}/gemini-2.0-flash:generateContent?key=AIza-test`, request);
    const recorded = mock.requests[0];
    expect(recorded).toMatchObject({
      method: 'POST',
      path: '/v1beta/models/gemini-2.0-flash:generateContent',
      query: { key: 'AIza-test' },
      route: 'gemini.generate',
      format: 'gemini',
      model: 'gemini-2.0-flash',
      stream: false,
    });
    expect(recorded.gemini).toEqual({
      model: 'gemini-2.0-flash',
      stream: false,
      systemInstruction: 'Answer briefly.',
      roles: ['user', 'model', 'user'],
      generationConfig: { temperature: 0.2, maxOutputTokens: 100, stopSequences: ['END'] },
      tools: request.tools,
    });
  });

  it('streams SSE chunks with alt=sse, the last one carrying finishReason and full usage (thoughts of a thinking model included)', async () => {
    const res = await fetch(`${base}/gemini-2.5-pro:streamGenerateContent?alt=sse&key=AIza-test`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(request),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const raw = await res.text();
    expect(raw).toContain('\r\n\r\n');
    const chunks = parseSse(raw).map((e) => JSON.parse(e.data) as GeminiChunk);
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.map((c) => c.candidates[0].content.parts[0].text).join('')).toBe(reply);
    for (const c of chunks) {
      expect(c.candidates[0].content.role).toBe('model');
      expect(c.modelVersion).toBe('gemini-2.5-pro');
    }
    expect(chunks.slice(0, -1).every((c) => c.candidates[0].finishReason === undefined)).toBe(true);
    const last = chunks[chunks.length - 1];
    expect(last.candidates[0].finishReason).toBe('STOP');
    expect(last.usageMetadata).toMatchObject({
      promptTokenCount: promptTokens,
      candidatesTokenCount: countTokens(reply),
      thoughtsTokenCount: GEMINI_THOUGHT_TOKENS,
      totalTokenCount: promptTokens + countTokens(reply) + GEMINI_THOUGHT_TOKENS,
    });
    expect(mock.requests[0]).toMatchObject({ route: 'gemini.stream', stream: true, query: { alt: 'sse' } });
  });

  it('streams a JSON array without alt=sse and accepts the x-goog-api-key header', async () => {
    const res = await fetch(`${base}/gemini-2.0-flash:streamGenerateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': 'AIza-test' },
      body: JSON.stringify({ contents: [{ parts: [{ text: 'array please' }] }] }),
    });
    expect(res.status).toBe(200);
    const chunks = (await res.json()) as GeminiChunk[];
    expect(chunks.map((c) => c.candidates[0].content.parts[0].text).join('')).toBe(mockReply('array please'));
  });

  it('stops at generationConfig.maxOutputTokens with MAX_TOKENS', async () => {
    const res = await postJson(`${base}/gemini-2.0-flash:generateContent?key=k`, {
      contents: [{ role: 'user', parts: [{ text: 'long' }] }],
      generationConfig: { maxOutputTokens: 1 },
    });
    const body = res.json as GeminiChunk;
    expect(body.candidates[0].content.parts[0].text).toBe('mock');
    expect(body.candidates[0].finishReason).toBe('MAX_TOKENS');
  });

  it('embeds content and lists models in Google format', async () => {
    const one = await postJson(`${base}/text-embedding-004:embedContent?key=k`, { content: { parts: [{ text: 'hi' }] } });
    expect((one.json as { embedding: { values: number[] } }).embedding.values).toHaveLength(GEMINI_EMBEDDING_DIMENSIONS);
    const batch = await postJson(`${base}/text-embedding-004:batchEmbedContents?key=k`, {
      requests: [{ content: { parts: [{ text: 'a' }] } }, { content: { parts: [{ text: 'b' }] }, outputDimensionality: 3 }],
    });
    const embeddings = (batch.json as { embeddings: { values: number[] }[] }).embeddings;
    expect(embeddings.map((e) => e.values.length)).toEqual([GEMINI_EMBEDDING_DIMENSIONS, 3]);

    const models = await getJson(`${mock.url}/v1beta/models?key=k`);
    expect(models.status).toBe(200);
    expect(models.json).toMatchObject({ models: expect.arrayContaining([expect.objectContaining({ name: 'models/gemini-2.0-flash' })]) });
  });

  it('answers 403 PERMISSION_DENIED without a key and 400 INVALID_ARGUMENT with a rejected one', async () => {
    const missing = await postJson(`${base}/gemini-2.0-flash:generateContent`, request);
    expect(missing.status).toBe(403);
    expect(missing.json).toEqual({
      error: { code: 403, message: expect.stringContaining('unregistered callers'), status: 'PERMISSION_DENIED' },
    });
    const bad = await postJson(`${base}/gemini-2.0-flash:generateContent?key=invalid-key`, request);
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({
      error: {
        code: 400,
        message: 'API key not valid. Please pass a valid API key.',
        status: 'INVALID_ARGUMENT',
        details: [expect.objectContaining({ reason: 'API_KEY_INVALID' })],
      },
    });
    const noContents = await postJson(`${base}/gemini-2.0-flash:generateContent?key=k`, {});
    expect(noContents.status).toBe(400);
    expect(noContents.json).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } });
  });
});
