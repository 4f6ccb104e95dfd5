import { GatewayHarness, postJson, PROVIDER_KEY, recordOf, startGateway } from './harness';

/**
 * Long-context tiers: a request whose prompt is above the model's threshold (200K tokens for Claude
 * Sonnet 4 / 4.5 and Gemini 2.5 Pro, 272K for GPT-5.4) is priced whole at the higher prices, in the
 * estimate (`X-SVC-Cost`) and in the usage record's cost. Prices per 1M tokens, from the price table.
 */
describe('gateway billing: long-context tiers', () => {
  let gw: GatewayHarness;

  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(() => gw.stop());
  beforeEach(() => gw.mock.reset());

  const auth = () => ({ 'X-SVC-API-Key': gw.key, 'X-Provider-Key': PROVIDER_KEY });

  /** The mock answers the next matching request with `body` (a canned provider answer, status 200). */
  const answerWith = (path: string, body: unknown, headers?: Record<string, string>) => gw.mock.setBehavior({ match: { path }, fail: { status: 200, body, ...(headers ? { headers } : {}) } });

  /** A B message whose usage has `input` uncached tokens, `read` cache reads and `written` 5-minute cache writes. */
  const message = (input: number, read: number, written: number, output: number) => ({
    id: 'msg_long',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5-20250929',
    content: [{ type: 'text', text: 'Summary of the repository.' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: {
      input_tokens: input,
      cache_creation_input_tokens: written,
      cache_read_input_tokens: read,
      cache_creation: { ephemeral_5m_input_tokens: written, ephemeral_1h_input_tokens: 0 },
      output_tokens: output,
    },
  });
  const request = { model: 'claude-sonnet-4-5', max_tokens: 4000, messages: [{ role: 'user', content: 'Summarize the repository.' }] };

  it('B: cache reads and writes count toward the 200K threshold; above it every token is at $6 / $0.60 / $7.50 / $22.50, at it at $3 / $0.30 / $3.75 / $15', async () => {
    // 40,000 input + 150,000 read + 10,001 written: a 200,001-token prompt.
    answerWith('/v1/messages', message(40_000, 150_000, 10_001, 2000));
    const above = await postJson(`${gw.url}/v1/messages`, request, auth());
    expect(above.status).toBe(200);
    const record = await recordOf(gw, above.headers.get('x-svc-request-id'));
    expect(record).toMatchObject({ usage_source: 'provider', input_tokens: 200_001, output_tokens: 2000 });
    expect(record.cost).toBeCloseTo((40_000 * 6 + 150_000 * 0.6 + 10_001 * 7.5 + 2000 * 22.5) / 1e6, 12);

    answerWith('/v1/messages', message(40_000, 150_000, 10_000, 2000));
    const at = await postJson(`${gw.url}/v1/messages`, request, auth());
    const atRecord = await recordOf(gw, at.headers.get('x-svc-request-id'));
    expect(atRecord).toMatchObject({ usage_source: 'provider', input_tokens: 200_000 });
    expect(atRecord.cost).toBeCloseTo((40_000 * 3 + 150_000 * 0.3 + 10_000 * 3.75 + 2000 * 15) / 1e6, 12);
  });

  it('B stream: the usage of message_start and message_delta, above the threshold, is charged at the tier', async () => {
    const event = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
    const start = message(5000, 200_000, 0, 1);
    const sse = [
      event('message_start', { message: { ...start, content: [], stop_reason: null } }),
      event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
      event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Summary.' } }),
      event('content_block_stop', { index: 0 }),
      event('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 800 } }),
      event('message_stop', {}),
    ].join('');
    answerWith('/v1/messages', sse, { 'content-type': 'text/event-stream' });
    const res = await fetch(`${gw.url}/v1/messages`, { method: 'POST', headers: { ...auth(), 'content-type': 'application/json' }, body: JSON.stringify({ ...request, stream: true }) });
    expect(await res.text()).toBe(sse);
    const record = await recordOf(gw, res.headers.get('x-svc-request-id'));
    expect(record).toMatchObject({ stream: true, usage_source: 'provider', input_tokens: 205_000, output_tokens: 800 });
    expect(record.cost).toBeCloseTo((5000 * 6 + 200_000 * 0.6 + 800 * 22.5) / 1e6, 12);
  });

  it('C: a prompt the gateway counts above 200K tokens is estimated at $2.50 / $15 in X-SVC-Cost, and the provider usage recorded at that tier', async () => {
    // 840,000 characters: some 210,000 tokens as the gateway counts Gemini (characters / 4) and as the mock does.
    const body = { model: 'gemini-2.5-pro', max_tokens: 50, messages: [{ role: 'user', content: 'token '.repeat(140_000) }] };
    const res = await postJson(`${gw.url}/v1/chat/completions`, body, auth());
    expect(res.status).toBe(200);
    const record = await recordOf(gw, res.headers.get('x-svc-request-id'));
    const estimated = record.replay.estimated_input_tokens;
    expect(estimated).toBeGreaterThan(200_000);
    const estimate = (estimated * 2.5 + 50 * 15) / 1e6;
    expect(Number(res.headers.get('x-svc-cost'))).toBeCloseTo(estimate, 6);
    expect(record.estimated_cost).toBeCloseTo(estimate, 12);
    expect(record.usage_source).toBe('provider');
    expect(record.input_tokens).toBe(res.body.usage.prompt_tokens);
    expect(record.input_tokens).toBeGreaterThan(200_000);
    expect(record.cost).toBeCloseTo((record.input_tokens * 2.5 + record.output_tokens * 15) / 1e6, 12);
  });

  it('A: GPT-5.4 counts cached prompt tokens toward its 272K threshold: $5 / $0.50 / $22.50 above it, $2.50 / $0.25 / $15 at it', async () => {
    const completion = (prompt: number, cached: number) => ({
      id: 'chatcmpl-long',
      object: 'chat.completion',
      created: 1,
      model: 'gpt-5.4-2026-03-05',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Done.' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: prompt, completion_tokens: 300, total_tokens: prompt + 300, prompt_tokens_details: { cached_tokens: cached } },
    });
    const chat = { model: 'gpt-5.4', max_completion_tokens: 1000, messages: [{ role: 'user', content: 'Go on.' }] };
    answerWith('/chat/completions', completion(272_001, 72_001));
    const above = await postJson(`${gw.url}/v1/chat/completions`, chat, auth());
    const record = await recordOf(gw, above.headers.get('x-svc-request-id'));
    expect(record).toMatchObject({ usage_source: 'provider', input_tokens: 272_001, output_tokens: 300 });
    expect(record.cost).toBeCloseTo((200_000 * 5 + 72_001 * 0.5 + 300 * 22.5) / 1e6, 12);

    answerWith('/chat/completions', completion(272_000, 72_000));
    const at = await postJson(`${gw.url}/v1/chat/completions`, chat, auth());
    const atRecord = await recordOf(gw, at.headers.get('x-svc-request-id'));
    expect(atRecord.cost).toBeCloseTo((200_000 * 2.5 + 72_000 * 0.25 + 300 * 15) / 1e6, 12);
  });
});
