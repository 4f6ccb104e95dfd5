import { startMockProvider, type MockBehavior, type MockProvider, type RecordedRequest } from './index';
import { ANTHROPIC_HEADERS, getJson, OPENAI_HEADERS, postJson } from './spec-helpers';

describe('mock provider: request record, control routes, echo and discovery', () => {
  let mock: MockProvider;
  const chat = { model: 'gpt-4o', messages: [{ role: 'user', content: 'record me' }] };

  beforeAll(async () => {
    mock = await startMockProvider({ maxRecords: 50 });
  });

  afterAll(async () => {
    await mock.close();
  });

  beforeEach(() => mock.reset());

  it('records method, path, query, lower-cased headers, parsed body, time and route', async () => {
    const before = Date.now();
    await postJson(`${mock.url}/v1/chat/completions?trace=1&x=a%20b`, { ...chat, stream: false }, {
      Authorization: 'Bearer sk-rec',
      'X-Custom-Header': 'Value',
    });
    expect(mock.requests).toHaveLength(1);
    const [entry] = mock.requests;
    expect(entry).toMatchObject({
      seq: 1,
      method: 'POST',
      path: '/v1/chat/completions',
      query: { trace: '1', x: 'a b' },
      body: { ...chat, stream: false },
      route: 'openai.chat',
      format: 'openai',
      model: 'gpt-4o',
      stream: false,
    });
    expect(entry.headers['authorization']).toBe('Bearer sk-rec');
    expect(entry.headers['x-custom-header']).toBe('Value');
    expect(Object.keys(entry.headers).every((h) => h === h.toLowerCase())).toBe(true);
    expect(entry.time).toBeGreaterThanOrEqual(before);
    expect(entry.time).toBeLessThanOrEqual(Date.now());
  });

  it('records requests that failed or were dropped, and non-JSON bodies as text', async () => {
    mock.setBehavior([
      { match: { route: 'openai.embeddings' }, drop: {} },
      { match: { route: 'openai.chat' }, fail: { status: 500 } },
    ]);
    await expect(postJson(`${mock.url}/v1/embeddings`, { model: 'e', input: 'x' }, OPENAI_HEADERS)).rejects.toThrow();
    expect((await postJson(`${mock.url}/v1/chat/completions`, chat, OPENAI_HEADERS)).status).toBe(500);
    await fetch(`${mock.url}/anything`, { method: 'PUT', body: 'plain text' });
    expect(mock.requests.map((r) => [r.seq, r.route, r.body])).toEqual([
      [1, 'openai.embeddings', { model: 'e', input: 'x' }],
      [2, 'openai.chat', chat],
      [3, 'echo', 'plain text'],
    ]);
  });

  it('stops recording when record is off and caps the record size', async () => {
    mock.configure({ record: false });
    await postJson(`${mock.url}/v1/chat/completions`, chat, OPENAI_HEADERS);
    expect(mock.requests).toHaveLength(0);
    expect(mock.totalRequests).toBe(1);

    mock.configure({ record: true, maxRecords: 3 });
    for (let i = 0; i < 5; i++) await postJson(`${mock.url}/v1/chat/completions`, chat, OPENAI_HEADERS);
    expect(mock.requests.map((r) => r.seq)).toEqual([4, 5, 6]);
    mock.clearRequests();
    expect(mock.requests).toHaveLength(0);
  });

  it('steers behaviour over HTTP and reports remaining counters', async () => {
    const rules: MockBehavior[] = [{ match: { format: 'anthropic' }, fail: { status: 529, times: 2 } }, { latencyMs: 1 }];
    const set = await postJson(`${mock.url}/__mock/behavior`, rules);
    expect(set.status).toBe(200);
    expect(set.json).toEqual({ behavior: rules });

    const failed = await postJson(`${mock.url}/v1/messages`, { model: 'c', max_tokens: 5, messages: [] }, ANTHROPIC_HEADERS);
    expect(failed.status).toBe(529);
    expect(failed.json).toMatchObject({ type: 'error', error: { type: 'overloaded_error' } });
    const current = await getJson(`${mock.url}/__mock/behavior`);
    expect(current.json).toEqual({ behavior: [{ ...rules[0], fail: { status: 529, times: 1 } }, rules[1]] });

    const invalid = await postJson(`${mock.url}/__mock/behavior`, { latency: 3 });
    expect(invalid.status).toBe(400);
    expect(invalid.json).toEqual({ error: 'invalid behavior: unknown field latency' });

    const cleared = await postJson(`${mock.url}/__mock/behavior`, []);
    expect(cleared.json).toEqual({ behavior: [] });
  });

  it('serves the record, config, reset and health over HTTP', async () => {
    expect((await getJson(`${mock.url}/__mock/health`)).json).toEqual({ ok: true });
    await postJson(`${mock.url}/v1/chat/completions`, chat, OPENAI_HEADERS);
    await postJson(`${mock.url}/v1/embeddings`, { model: 'e', input: 'x' }, OPENAI_HEADERS);

    const all = (await getJson(`${mock.url}/__mock/requests`)).json as { count: number; total: number; requests: RecordedRequest[] };
    expect(all.count).toBe(2);
    expect(all.total).toBe(2);
    expect(all.requests.map((r) => r.route)).toEqual(['openai.chat', 'openai.embeddings']);
    const since = (await getJson(`${mock.url}/__mock/requests?since=1`)).json as { requests: RecordedRequest[] };
    expect(since.requests.map((r) => r.seq)).toEqual([2]);

    const config = await postJson(`${mock.url}/__mock/config`, { record: false, validKeys: ['only-this'] });
    expect(config.json).toEqual({ config: { record: false, maxRecords: 50, validKeys: ['only-this'], requireAuth: true } });
    expect((await postJson(`${mock.url}/v1/chat/completions`, chat, OPENAI_HEADERS)).status).toBe(401);
    expect((await postJson(`${mock.url}/v1/chat/completions`, chat, { authorization: 'Bearer only-this' })).status).toBe(200);
    expect(mock.requests).toHaveLength(2);
    expect((await postJson(`${mock.url}/__mock/config`, { record: 'no' })).status).toBe(400);

    const deleted = await fetch(`${mock.url}/__mock/requests`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect(mock.requests).toHaveLength(0);

    mock.setBehavior({ latencyMs: 5 });
    expect((await postJson(`${mock.url}/__mock/reset`, {})).json).toEqual({ ok: true });
    expect(mock.getBehavior()).toEqual([]);
    expect(mock.getConfig()).toEqual({ record: true, maxRecords: 50, validKeys: null, requireAuth: true });
    expect(mock.totalRequests).toBe(0);
    expect((await getJson(`${mock.url}/__mock/nope`)).status).toBe(404);
  });

  it('skips credential checks when requireAuth is off', async () => {
    mock.configure({ requireAuth: false });
    expect((await postJson(`${mock.url}/v1/chat/completions`, chat)).status).toBe(200);
    expect((await postJson(`${mock.url}/v1/messages`, { model: 'c', max_tokens: 5, messages: [] }, { 'anthropic-version': '2023-06-01' })).status).toBe(200);
    expect((await postJson(`${mock.url}/v1beta/models/g:generateContent`, { contents: [{ parts: [{ text: 'x' }] }] })).status).toBe(200);
  });

  it('echoes unknown paths with method, path, query and body (catch-all forwarding)', async () => {
    const res = await fetch(`${mock.url}/v1/fine_tuning/jobs/ftjob-1/events?limit=2`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-d' },
      body: JSON.stringify({ hello: 'world' }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      method: 'POST',
      path: '/v1/fine_tuning/jobs/ftjob-1/events',
      query: { limit: '2' },
      headers: expect.objectContaining({ authorization: 'Bearer sk-d' }),
      body: { hello: 'world' },
    });
    const get = await getJson(`${mock.url}/v1/files`);
    expect(get.json).toMatchObject({ method: 'GET', path: '/v1/files', query: {}, body: null });
    expect(mock.requests.map((r) => r.route)).toEqual(['echo', 'echo']);
  });

  it('lists Ollama models at /api/tags', async () => {
    const res = await getJson(`${mock.url}/api/tags`);
    expect(res.status).toBe(200);
    const { models } = res.json as { models: Record<string, unknown>[] };
    expect(models.length).toBeGreaterThan(0);
    for (const model of models) {
      expect(Object.keys(model).sort()).toEqual(['details', 'digest', 'model', 'modified_at', 'name', 'size']);
      expect(model['digest']).toMatch(/^[0-9a-f]{64}$/);
    }
    expect(models[0]).toMatchObject({ name: 'llama3.2:latest', details: { format: 'gguf', family: 'llama' } });
  });
});
