import OpenAI from 'openai';
import { countTokens, DEFAULT_EMBEDDING_DIMENSIONS, mockReply, startMockProvider, type MockProvider } from './index';
import { getJson, OPENAI_HEADERS, postJson } from './spec-helpers';

describe('mock provider: format A / D (OpenAI chat completions) through the official SDK', () => {
  let mock: MockProvider;
  let client: OpenAI;

  beforeAll(async () => {
    mock = await startMockProvider();
    client = new OpenAI({ apiKey: 'sk-test', baseURL: `${mock.url}/v1`, maxRetries: 0 });
  });

  afterAll(async () => {
    await mock.close();
  });

  beforeEach(() => mock.reset());

  it('answers a non-streaming chat completion with predictable content and usage', async () => {
    const question = 'What is the capital of France?';
    const completion = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: question },
      ],
    });
    const reply = mockReply(question);
    expect(completion.object).toBe('chat.completion');
    expect(completion.id).toMatch(/^chatcmpl-/);
    expect(typeof completion.created).toBe('number');
    expect(completion.model).toBe('gpt-4o-mini');
    expect(completion.choices).toHaveLength(1);
    expect(completion.choices[0].index).toBe(0);
    expect(completion.choices[0].message).toMatchObject({ role: 'assistant', content: reply });
    expect(completion.choices[0].finish_reason).toBe('stop');
    const promptTokens = Math.ceil(('Be brief.'.length + question.length) / 4);
    expect(completion.usage).toEqual({
      prompt_tokens: promptTokens,
      completion_tokens: countTokens(reply),
      total_tokens: promptTokens + countTokens(reply),
    });
  });

  it('derives the reply from the last user message (first 40 characters)', async () => {
    const long = 'x'.repeat(100);
    const completion = await client.chat.completions.create({
      model: 'gpt-4o',
      messages: [
        { role: 'user', content: 'first question' },
        { role: 'assistant', content: 'first answer' },
        { role: 'user', content: [{ type: 'text', text: long }] },
      ],
    });
    expect(completion.choices[0].message.content).toBe(`mock reply to: ${'x'.repeat(40)}`);
  });

  it('cuts the reply at max_tokens and reports finish_reason length', async () => {
    const completion = await client.chat.completions.create({
      model: 'gpt-4o',
      max_tokens: 2,
      messages: [{ role: 'user', content: 'tell me a long story' }],
    });
    expect(completion.choices[0].message.content).toBe('mock rep');
    expect(completion.choices[0].finish_reason).toBe('length');
    expect(completion.usage?.completion_tokens).toBe(2);
  });

  it('streams chunks and ends with a usage-only chunk when include_usage is set', async () => {
    const stream = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'stream please' }],
    });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);

    expect(chunks.length).toBeGreaterThanOrEqual(5);
    for (const chunk of chunks) expect(chunk.object).toBe('chat.completion.chunk');
    expect(chunks[0].choices[0].delta.role).toBe('assistant');
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe(mockReply('stream please'));
    const contentChunks = chunks.filter((c) => c.choices[0]?.delta.content);
    expect(contentChunks.length).toBeGreaterThan(2);
    expect(chunks[chunks.length - 2].choices[0].finish_reason).toBe('stop');
    const last = chunks[chunks.length - 1];
    expect(last.choices).toEqual([]);
    expect(last.usage).toEqual({
      prompt_tokens: countTokens('stream please'),
      completion_tokens: countTokens(mockReply('stream please')),
      total_tokens: countTokens('stream please') + countTokens(mockReply('stream please')),
    });
  });

  it('sends no usage chunk without include_usage, and the stream helper assembles the completion', async () => {
    const raw = await fetch(`${mock.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...OPENAI_HEADERS, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(raw.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const body = await raw.text();
    expect(body).not.toContain('"usage"');
    expect(body.trimEnd().endsWith('data: [DONE]')).toBe(true);

    const final = await client.chat.completions
      .stream({ model: 'gpt-4o', messages: [{ role: 'user', content: 'assemble me' }] })
      .finalChatCompletion();
    expect(final.choices[0].message.content).toBe(mockReply('assemble me'));
    expect(final.choices[0].finish_reason).toBe('stop');
  });

  it('creates embeddings (SDK default base64 decoding and explicit float arrays)', async () => {
    const decoded = await client.embeddings.create({ model: 'text-embedding-3-small', input: ['alpha', 'beta'] });
    expect(decoded.object).toBe('list');
    expect(decoded.model).toBe('text-embedding-3-small');
    expect(decoded.data.map((d) => d.index)).toEqual([0, 1]);
    expect(decoded.data[0].object).toBe('embedding');
    expect(decoded.data[0].embedding).toHaveLength(DEFAULT_EMBEDDING_DIMENSIONS);
    expect(decoded.usage).toEqual({ prompt_tokens: 3, total_tokens: 3 });
    expect(mock.requests[0].body).toMatchObject({ encoding_format: 'base64', input: ['alpha', 'beta'] });

    const floats = await client.embeddings.create({
      model: 'text-embedding-3-small',
      input: 'alpha',
      encoding_format: 'float',
      dimensions: 4,
    });
    const vector = floats.data[0].embedding;
    expect(vector).toHaveLength(4);
    const norm = Math.sqrt(vector.reduce((sum, v) => sum + v * v, 0));
    expect(norm).toBeCloseTo(1, 5);
    const again = await client.embeddings.create({ model: 'm', input: 'alpha', encoding_format: 'float', dimensions: 4 });
    expect(again.data[0].embedding).toEqual(vector);
    // base64 decoding by the SDK gives the same float32 values as the float form.
    const eight = await client.embeddings.create({ model: 'm', input: 'alpha', encoding_format: 'float' });
    expect(decoded.data[0].embedding).toEqual(eight.data[0].embedding);
  });

  it('lists and retrieves models in OpenAI list format, with and without the /v1 prefix', async () => {
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).toContain('gpt-4o');
    const model = await client.models.retrieve('gpt-4o');
    expect(model).toMatchObject({ id: 'gpt-4o', object: 'model', owned_by: 'openai' });
    await expect(client.models.retrieve('no-such-model')).rejects.toMatchObject({ status: 404 });

    const bare = await getJson(`${mock.url}/models`, OPENAI_HEADERS);
    expect(bare.status).toBe(200);
    expect(bare.json).toMatchObject({ object: 'list', data: expect.arrayContaining([expect.objectContaining({ id: 'gpt-4o' })]) });
  });

  it('serves the same routes under any prefix and without /v1 (format-D base URLs)', async () => {
    for (const base of [`${mock.url}/openai/v1`, mock.url, `${mock.url}/api/groq/v1/`]) {
      const d = new OpenAI({ apiKey: 'gsk-test', baseURL: base, maxRetries: 0 });
      const completion = await d.chat.completions.create({
        model: 'llama-3.3-70b-versatile',
        messages: [{ role: 'user', content: 'from D' }],
      });
      expect(completion.choices[0].message.content).toBe(mockReply('from D'));
    }
    expect(mock.requests.map((r) => r.path)).toEqual([
      '/openai/v1/chat/completions',
      '/chat/completions',
      '/api/groq/v1/chat/completions',
    ]);
    expect(mock.requests.every((r) => r.route === 'openai.chat')).toBe(true);
  });

  it('answers 401 in OpenAI error format without or with a rejected bearer key', async () => {
    const missing = await postJson(`${mock.url}/v1/chat/completions`, { model: 'gpt-4o', messages: [] });
    expect(missing.status).toBe(401);
    expect(missing.json).toEqual({
      error: { message: expect.stringContaining("didn't provide an API key"), type: 'invalid_request_error', param: null, code: null },
    });

    const bad = new OpenAI({ apiKey: 'invalid-key-123', baseURL: `${mock.url}/v1`, maxRetries: 0 });
    const err = await bad.chat.completions
      .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(err).toMatchObject({ status: 401, code: 'invalid_api_key', type: 'invalid_request_error' });

    const models = await getJson(`${mock.url}/v1/models`);
    expect(models.status).toBe(401);
  });

  it('answers 400 in OpenAI error format for a missing required parameter', async () => {
    const res = await postJson(`${mock.url}/v1/chat/completions`, { model: 'gpt-4o' }, OPENAI_HEADERS);
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      error: {
        message: "Missing required parameter: 'messages'.",
        type: 'invalid_request_error',
        param: 'messages',
        code: 'missing_required_parameter',
      },
    });
  });
});
