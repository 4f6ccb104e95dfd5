import OpenAI from 'openai';
import { GatewayHarness, Json, openaiClient, postJson, PROVIDER_KEY, startGateway } from './harness';

/**
 * Idempotency-Key on chat completions outside in (DECISIONS.md "Idempotency-Key", docs/gateway.md):
 * replay, 409 `idempotency_key_reused`, 409 `idempotency_key_in_progress`, the key's limits, answers
 * that are not stored, and streamed requests (checked and held while in flight, never stored).
 */
describe('Idempotency-Key on chat completions', () => {
  let gw: GatewayHarness;
  const url = () => `${gw.url}/v1/chat/completions`;
  const auth = (key: string) => ({ 'X-SVC-API-Key': gw.key, 'X-Provider-Key': PROVIDER_KEY, 'Idempotency-Key': key });
  const chat = (content: string, extra: Json = {}) => ({ model: 'gpt-4o-mini', max_tokens: 10, messages: [{ role: 'user', content }], ...extra });
  const upstream = (marker: string) => gw.mock.requests.filter((r) => JSON.stringify(r.body ?? '').includes(marker)).length;
  const unique = (name: string) => `${name}-${Date.now()}-${Math.random().toString(36).slice(2)}`;

  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(() => gw.stop());
  beforeEach(() => gw.mock.reset());

  it('replays the same key and body with Idempotent-Replayed: true, at cost 0; another body is 409 idempotency_key_reused', async () => {
    const key = unique('replay');
    const first = await postJson(url(), chat('replay me'), auth(key));
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const replay = await postJson(url(), chat('replay me'), auth(key));
    expect({ status: replay.status, replayed: replay.headers.get('idempotent-replayed'), cost: replay.headers.get('x-svc-cost'), id: replay.body.id }).toEqual({ status: 200, replayed: 'true', cost: '0', id: first.body.id });
    expect(replay.headers.get('x-svc-request-id')).not.toBe(first.headers.get('x-svc-request-id'));
    const other = await postJson(url(), chat('replay me', { temperature: 1 }), auth(key));
    expect(other.status).toBe(409);
    expect(other.body.error).toMatchObject({ type: 'invalid_request_error', code: 'idempotency_key_reused', param: 'Idempotency-Key' });
    expect(upstream('replay me')).toBe(1);
  });

  it('five at the same moment: one reaches the provider, the others are 409 idempotency_key_in_progress; then it replays', async () => {
    gw.mock.setBehavior({ match: { format: 'openai' }, latencyMs: 300 });
    const key = unique('concurrent');
    const answers = await Promise.all(Array.from({ length: 5 }, () => postJson(url(), chat('five at once'), auth(key))));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409]);
    for (const refused of answers.filter((a) => a.status === 409)) expect(refused.body.error).toMatchObject({ code: 'idempotency_key_in_progress', param: 'Idempotency-Key' });
    const replay = await postJson(url(), chat('five at once'), auth(key));
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(upstream('five at once')).toBe(1);
  });

  it('takes 1 to 255 visible ASCII characters; anything else is 400 invalid_request naming Idempotency-Key', async () => {
    expect((await postJson(url(), chat('long key'), auth('k'.repeat(255)))).status).toBe(200);
    for (const key of ['', ' ', 'k'.repeat(256), 'with space', 'tab\there']) {
      const res = await postJson(url(), chat('bad key'), auth(key));
      expect({ key, status: res.status, error: res.body.error }).toMatchObject({ key, status: 400, error: { type: 'invalid_request_error', code: 'invalid_request', param: 'Idempotency-Key' } });
    }
    expect(upstream('bad key')).toBe(0);
  });

  it('does not store a 5xx or a 429 (the retry reaches the provider); a 400 is stored and replayed', async () => {
    for (const status of [500, 503, 429, 400]) {
      gw.mock.reset();
      gw.mock.setBehavior({ match: { format: 'openai' }, fail: { status, times: 1 } });
      const key = unique(`status-${status}`);
      const first = await postJson(url(), chat(`fails with ${status}`), auth(key));
      const retry = await postJson(url(), chat(`fails with ${status}`), auth(key));
      const stored = status === 400;
      expect({ status, first: first.status, retry: retry.status, replayed: retry.headers.get('idempotent-replayed'), upstream: upstream(`fails with ${status}`) }).toEqual({
        status,
        first: status,
        retry: stored ? 400 : 200,
        replayed: stored ? 'true' : null,
        upstream: stored ? 1 : 2,
      });
    }
  });

  it('a streamed request with a key already used for another body is 409 idempotency_key_reused, as a whole one is', async () => {
    const key = unique('stored-then-stream');
    expect((await postJson(url(), chat('stored first'), auth(key))).status).toBe(200);
    const streamed = await postJson(url(), chat('stored first', { stream: true }), auth(key));
    expect(streamed.status).toBe(409);
    expect(streamed.body.error).toMatchObject({ type: 'invalid_request_error', code: 'idempotency_key_reused', param: 'Idempotency-Key' });
    expect(upstream('stored first')).toBe(1);
  });

  it('two streams with one key at the same moment: one is served, the other 409 idempotency_key_in_progress; a stream is never stored, so a later repeat streams anew', async () => {
    gw.mock.setBehavior({ match: { format: 'openai' }, latencyMs: 300 });
    const key = unique('streams');
    const body = chat('two streams', { stream: true });
    const answers = await Promise.all([postJson(url(), body, auth(key)), postJson(url(), body, auth(key))]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    expect(answers.find((a) => a.status === 409)?.body.error).toMatchObject({ code: 'idempotency_key_in_progress', param: 'Idempotency-Key' });
    const served = answers.find((a) => a.status === 200);
    expect(served?.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(upstream('two streams')).toBe(1);
    // The key was released when the stream ended: the same stream runs again, not replayed.
    const again = await postJson(url(), body, auth(key));
    expect({ status: again.status, replayed: again.headers.get('idempotent-replayed') }).toEqual({ status: 200, replayed: null });
    expect(upstream('two streams')).toBe(2);
  });

  it('through the OpenAI SDK: a stream with an Idempotency-Key reused for another body fails with a ConflictError', async () => {
    const client = openaiClient(gw);
    const key = unique('sdk');
    await client.chat.completions.create(chat('sdk first') as OpenAI.ChatCompletionCreateParamsNonStreaming, { headers: { 'Idempotency-Key': key } });
    const error = await client.chat.completions.create({ ...chat('sdk first'), stream: true } as OpenAI.ChatCompletionCreateParamsStreaming, { headers: { 'Idempotency-Key': key } }).then(
      () => null,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(OpenAI.ConflictError);
    expect((error as InstanceType<typeof OpenAI.ConflictError>).code).toBe('idempotency_key_reused');
    expect(upstream('sdk first')).toBe(1);
  });
});
