import { MOCK_BINARY_BYTES, startMockProvider, type MockProvider } from './index';
import { OPENAI_HEADERS } from './spec-helpers';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('mock provider: binary answers and the record of client disconnects', () => {
  let mock: MockProvider;

  beforeAll(async () => {
    mock = await startMockProvider();
  });
  afterAll(() => mock.close());
  beforeEach(() => mock.reset());

  it('answers GET …/files/{id}/content with bytes that are not UTF-8, as application/octet-stream', async () => {
    const res = await fetch(`${mock.url}/v1/files/file-abc/content`, { headers: OPENAI_HEADERS });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.equals(MOCK_BINARY_BYTES)).toBe(true);
    expect(Buffer.from(bytes.toString('utf8'), 'utf8').equals(bytes)).toBe(false);
    expect(mock.requests.at(-1)).toMatchObject({ route: 'openai.binary', format: 'openai', method: 'GET' });
  });

  it('answers POST …/audio/speech with the same bytes as audio/mpeg, behind a bearer key', async () => {
    const body = JSON.stringify({ model: 'tts-1', input: 'hello', voice: 'alloy' });
    const res = await fetch(`${mock.url}/openai/v1/audio/speech`, { method: 'POST', headers: { ...OPENAI_HEADERS, 'content-type': 'application/json' }, body });
    expect(res.headers.get('content-type')).toBe('audio/mpeg');
    expect(Buffer.from(await res.arrayBuffer()).equals(MOCK_BINARY_BYTES)).toBe(true);
    const refused = await fetch(`${mock.url}/v1/audio/speech`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');
  });

  it('records when the client closes the connection before the end of a slow stream', async () => {
    // Chunks 2 s apart: a close noticed only at the next write would come up to 2 s after the abort.
    mock.setBehavior({ chunkDelayMs: 2_000 });
    const controller = new AbortController();
    const res = await fetch(`${mock.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...OPENAI_HEADERS, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'drip slowly please' }] }),
      signal: controller.signal,
    });
    await res.body?.getReader().read();
    expect(mock.requests[0].clientClosedAt).toBeUndefined();
    const abortedAt = Date.now();
    controller.abort();
    for (let i = 0; i < 300 && mock.requests[0].clientClosedAt === undefined; i++) await sleep(10);
    const closedAt = mock.requests[0].clientClosedAt as number;
    expect(closedAt).toBeGreaterThanOrEqual(abortedAt);
    expect(closedAt - abortedAt).toBeLessThan(1_000);
  });

  it('leaves clientClosedAt unset for a completed answer and for connections the mock cut itself', async () => {
    await (await fetch(`${mock.url}/v1/files/f/content`, { headers: OPENAI_HEADERS })).arrayBuffer();
    mock.setBehavior([{ match: { path: '/drop' }, drop: { times: 1 } }, { abort: { afterChunks: 1 } }]);
    await fetch(`${mock.url}/v1/drop/chat/completions`, { method: 'POST', headers: OPENAI_HEADERS, body: '{}' }).catch(() => undefined);
    const aborted = await fetch(`${mock.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...OPENAI_HEADERS, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'cut me' }] }),
    });
    await aborted.text().catch(() => undefined);
    await sleep(50);
    expect(mock.requests.map((r) => r.route)).toEqual(['openai.binary', 'openai.chat', 'openai.chat']);
    expect(mock.requests.map((r) => r.clientClosedAt)).toEqual([undefined, undefined, undefined]);
  });
});
