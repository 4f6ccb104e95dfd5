import { UsageRecordEntity } from '@svc/domain';
import { costOf, SERVER_TOOL_FEES } from '@svc/governance';
import { createOrg, GatewayHarness, postJson, PROVIDER_KEY, recordOf, setPolicy, startGateway, TestOrg } from './harness';

/**
 * What a proxied request costs where the provider bills more than prompt and answer text: the D
 * catch-all's calls without a prompt, answers with a Responses-style usage, A's audio tokens and
 * B's server tools. Each is checked in the usage record (and `X-SVC-Cost` where it differs).
 */
describe('gateway billing: what the record charges beyond plain tokens', () => {
  let gw: GatewayHarness;

  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(() => gw.stop());
  beforeEach(() => gw.mock.reset());

  const auth = (org: TestOrg) => ({ 'X-SVC-API-Key': org.key, 'X-Provider-Key': PROVIDER_KEY });

  /** The mock answers the next matching request with `body` (a canned provider answer, status 200). */
  const answerWith = (path: string, body: unknown, headers?: Record<string, string>) => gw.mock.setBehavior({ match: { path }, fail: { status: 200, body, ...(headers ? { headers } : {}) } });

  it('D catch-all: a GET of a job list or a file is estimated and charged nothing, so a tight cap or budget does not refuse it', async () => {
    const org = await createOrg(gw, 'growth');
    // Far below what 4,096 made-up output tokens would be estimated at ($0.06 at the default price).
    await setPolicy(gw, org.orgId, { max_cost_per_request: 0.001, daily_budget: 0.01 });
    // (`GET /v1/mistral/models` is the gateway's own list; these two reach the provider.)
    for (const path of ['/v1/mistral/batch/jobs?status=RUNNING', '/v1/mistral/files/file-abc/content']) {
      const res = await fetch(`${gw.url}${path}`, { headers: auth(org) });
      await res.arrayBuffer();
      expect([path, res.status, res.headers.get('x-svc-cost')]).toEqual([path, 200, '0']);
      const record = await recordOf(gw, res.headers.get('x-svc-request-id'), org.orgId);
      expect(record).toMatchObject({ provider: 'mistral', status_code: 200, estimated_cost: 0, cost: 0, input_tokens: 0, output_tokens: 0, usage_source: 'none' });
      expect(record.replay).toMatchObject({ estimated_input_tokens: 0, max_output_tokens: 0 });
    }
  });

  it('D catch-all: a call with a prompt and an answer without usage is still charged its estimate', async () => {
    const org = await createOrg(gw, 'growth');
    const body = { model: 'mistral-small-latest', agent_id: 'ag_1', messages: [{ role: 'user', content: 'plan my week' }], max_tokens: 50 };
    const res = await postJson(`${gw.url}/v1/mistral/agents/completions`, body, auth(org));
    expect(res.status).toBe(200); // the mock's echo: no usage in it
    const record = await recordOf(gw, res.headers.get('x-svc-request-id'), org.orgId);
    expect(record).toMatchObject({ usage_source: 'estimate', input_tokens: record.replay.estimated_input_tokens, output_tokens: 50 });
    expect(record.estimated_cost).toBeGreaterThan(0);
    expect(record.cost).toBeCloseTo(costOf('mistral-small-latest', { input_tokens: record.input_tokens, output_tokens: 50 }), 12);
  });

  it('D catch-all: a Responses-style usage (input_tokens, output_tokens) is the provider account, whole or streamed', async () => {
    const org = await createOrg(gw, 'growth');
    const usage = { input_tokens: 1200, input_tokens_details: { cached_tokens: 0 }, output_tokens: 300, output_tokens_details: { reasoning_tokens: 100 }, total_tokens: 1500 };
    answerWith('/responses', { id: 'resp_1', object: 'response', status: 'completed', output: [], usage });
    const body = { model: 'llama-3.3-70b-versatile', input: 'Write a haiku about tokens', max_output_tokens: 500 };
    const whole = await postJson(`${gw.url}/v1/groq/responses`, body, auth(org));
    expect(whole.status).toBe(200);
    const expected = costOf('llama-3.3-70b-versatile', { input_tokens: 1200, output_tokens: 300 });
    const record = await recordOf(gw, whole.headers.get('x-svc-request-id'), org.orgId);
    expect(record).toMatchObject({ usage_source: 'provider', input_tokens: 1200, output_tokens: 300 });
    expect(record.cost).toBeCloseTo(expected, 12);
    expect(record.replay.max_output_tokens).toBe(500);

    const event = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
    const sse = [
      event('response.created', { response: { id: 'resp_2', status: 'in_progress', usage: null } }),
      event('response.output_text.delta', { item_id: 'msg_1', delta: 'Tokens fall like rain' }),
      event('response.completed', { response: { id: 'resp_2', status: 'completed', usage } }),
    ].join('');
    answerWith('/responses', sse, { 'content-type': 'text/event-stream' });
    const res = await fetch(`${gw.url}/v1/groq/responses`, { method: 'POST', headers: { ...auth(org), 'content-type': 'application/json' }, body: JSON.stringify({ ...body, stream: true }) });
    expect(await res.text()).toBe(sse);
    const streamed = await recordOf(gw, res.headers.get('x-svc-request-id'), org.orgId);
    expect(streamed).toMatchObject({ stream: true, usage_source: 'provider', input_tokens: 1200, output_tokens: 300 });
    expect(streamed.cost).toBeCloseTo(expected, 12);
  });

  it('D catch-all: a Responses-style stream that ends without usage is charged the text of its deltas once, not again from its done events', async () => {
    const org = await createOrg(gw, 'growth');
    const event = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
    const text = 'Tokens fall like rain on the meadow of the context window';
    const args = JSON.stringify({ poem: text, lines: 3 });
    const call = { id: 'fc_1', type: 'function_call', call_id: 'call_1', name: 'save_poem', arguments: args, status: 'completed' };
    const sse = [
      event('response.created', { response: { id: 'resp_3', status: 'in_progress', usage: null } }),
      event('response.output_text.delta', { item_id: 'msg_1', delta: text }),
      event('response.output_text.done', { item_id: 'msg_1', text }),
      event('response.output_item.done', { output_index: 0, item: { id: 'msg_1', type: 'message', content: [{ type: 'output_text', text }] } }),
      event('response.function_call_arguments.delta', { item_id: 'fc_1', output_index: 1, delta: args }),
      event('response.function_call_arguments.done', { item_id: 'fc_1', output_index: 1, arguments: args }),
      event('response.output_item.done', { output_index: 1, item: call }),
    ].join('');
    answerWith('/responses', sse, { 'content-type': 'text/event-stream' });
    const body = { model: 'llama-3.3-70b-versatile', input: 'Write a haiku about tokens', max_output_tokens: 500, stream: true };
    const res = await fetch(`${gw.url}/v1/groq/responses`, { method: 'POST', headers: { ...auth(org), 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(await res.text()).toBe(sse);
    const record = await recordOf(gw, res.headers.get('x-svc-request-id'), org.orgId);
    // The text as it travels in JSON strings (the arguments' quotes escaped), counted once.
    const relayed = text.length + JSON.stringify(args).length - 2;
    expect(record).toMatchObject({ usage_source: 'estimate', input_tokens: record.replay.estimated_input_tokens, output_tokens: Math.ceil(relayed / 4) });
  });

  it('D catch-all: a Responses-style stream that fails (response.failed, event: error) is charged its estimate, like a chat stream with an error chunk', async () => {
    const org = await createOrg(gw, 'growth');
    const event = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
    const text = 'Tokens fall like rain on the meadow of the context window';
    const opening = [event('response.created', { response: { id: 'resp_4', status: 'in_progress', usage: null } }), event('response.output_text.delta', { item_id: 'msg_1', delta: text })].join('');
    // The failed response reports what it spent so far: not the provider's final account of the call.
    const failure = { id: 'resp_4', status: 'failed', error: { code: 'server_error', message: 'The model failed' }, usage: { input_tokens: 1200, output_tokens: 2, total_tokens: 1202 } };
    const error = { code: 'ERR_SOMETHING', message: 'Something went wrong', param: null, sequence_number: 3 };
    const body = { model: 'llama-3.3-70b-versatile', input: 'Write a haiku about tokens', max_output_tokens: 500, stream: true };
    const post = async (sse: string) => {
      answerWith('/responses', sse, { 'content-type': 'text/event-stream' });
      const res = await fetch(`${gw.url}/v1/groq/responses`, { method: 'POST', headers: { ...auth(org), 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(await res.text()).toBe(sse);
      return recordOf(gw, res.headers.get('x-svc-request-id'), org.orgId);
    };
    const failed = await post(opening + event('response.failed', { response: failure }));
    // Input: the provider's own count; output: the text relayed (4 characters a token), above its running 2.
    expect(failed).toMatchObject({ stream: true, status_code: 200, usage_source: 'estimate', input_tokens: 1200, output_tokens: Math.ceil(text.length / 4) });
    expect(failed.cost).toBeCloseTo(costOf('llama-3.3-70b-versatile', { input_tokens: 1200, output_tokens: Math.ceil(text.length / 4) }), 12);
    const errored = await post(opening + event('error', error));
    expect(errored).toMatchObject({ stream: true, status_code: 200, usage_source: 'estimate', input_tokens: errored.replay.estimated_input_tokens, output_tokens: Math.ceil(text.length / 4) });
  });

  it('A: audio tokens are charged at the audio prices', async () => {
    const org = await createOrg(gw, 'growth');
    const usage = {
      prompt_tokens: 1100,
      completion_tokens: 550,
      total_tokens: 1650,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 1000 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 500 },
    };
    const message = { role: 'assistant', content: null, audio: { id: 'audio_1', data: 'AAAA', transcript: 'Hi there', expires_at: 1 } };
    answerWith('/chat/completions', { id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'gpt-4o-audio-preview', choices: [{ index: 0, message, finish_reason: 'stop' }], usage });
    const body = { model: 'gpt-4o-audio-preview', modalities: ['text', 'audio'], audio: { voice: 'alloy', format: 'wav' }, messages: [{ role: 'user', content: 'Say hi' }] };
    const res = await postJson(`${gw.url}/v1/chat/completions`, body, auth(org));
    expect(res.status).toBe(200);
    const record = await recordOf(gw, res.headers.get('x-svc-request-id'), org.orgId);
    expect(record).toMatchObject({ usage_source: 'provider', input_tokens: 1100, output_tokens: 550 });
    // gpt-4o-audio-preview: 2.5 text / 40 audio input, 10 text / 80 audio output per 1M.
    expect(record.cost).toBeCloseTo((100 * 2.5 + 1000 * 40 + 50 * 10 + 500 * 80) / 1e6, 12);
  });

  it('C: the uncached audio part of the prompt (promptTokensDetails AUDIO) is charged at the audio input price, whole and streamed', async () => {
    const org = await createOrg(gw, 'growth');
    // 5,000 prompt tokens: 3,000 of audio (1,000 of them read from the cache) and 2,000 of text (500 cached).
    const usageMetadata = {
      promptTokenCount: 5000,
      candidatesTokenCount: 400,
      totalTokenCount: 5400,
      cachedContentTokenCount: 1500,
      promptTokensDetails: [
        { modality: 'TEXT', tokenCount: 2000 },
        { modality: 'AUDIO', tokenCount: 3000 },
      ],
      cacheTokensDetails: [
        { modality: 'TEXT', tokenCount: 500 },
        { modality: 'AUDIO', tokenCount: 1000 },
      ],
    };
    const answer = { candidates: [{ content: { role: 'model', parts: [{ text: 'A bird sings.' }] }, finishReason: 'STOP', index: 0 }], usageMetadata, modelVersion: 'gemini-2.5-flash' };
    // gemini-2.5-flash, ai.google.dev/gemini-api/docs/pricing: $0.30 text, $1.00 audio input, $0.03
    // cache read, $2.50 output per 1M: 1,500 uncached text, 2,000 uncached audio, 1,500 cached, 400 out.
    const expected = (1500 * 0.3 + 2000 * 1 + 1500 * 0.03 + 400 * 2.5) / 1e6;
    const body = { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'What is in this recording?' }] };
    answerWith('/v1beta/models/gemini-2.5-flash:generateContent', answer);
    const whole = await postJson(`${gw.url}/v1/chat/completions`, body, auth(org));
    expect(whole.status).toBe(200);
    // The translated answer reports the audio part as format A does.
    expect(whole.body.usage.prompt_tokens_details).toEqual({ cached_tokens: 1500, audio_tokens: 2000 });
    const record = await recordOf(gw, whole.headers.get('x-svc-request-id'), org.orgId);
    expect(record).toMatchObject({ provider: 'gemini', usage_source: 'provider', input_tokens: 5000, output_tokens: 400 });
    expect(record.cost).toBeCloseTo(expected, 12);

    answerWith('/v1beta/models/gemini-2.5-flash:streamGenerateContent', `data: ${JSON.stringify(answer)}\r\n\r\n`, { 'content-type': 'text/event-stream' });
    const res = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { ...auth(org), 'content-type': 'application/json' }, body: JSON.stringify({ ...body, stream: true }) });
    expect(await res.text()).toContain('[DONE]');
    const streamed = await recordOf(gw, res.headers.get('x-svc-request-id'), org.orgId);
    expect(streamed).toMatchObject({ stream: true, usage_source: 'provider', input_tokens: 5000, output_tokens: 400 });
    expect(streamed.cost).toBeCloseTo(expected, 12);
  });

  it('B: web searches are charged $10 per 1,000 on top of the tokens, whole and streamed; web fetches their tokens only', async () => {
    const org = await createOrg(gw, 'growth');
    const search = { type: 'web_search_20250305', name: 'web_search', max_uses: 2 };
    const fetchTool = { type: 'web_fetch_20250910', name: 'web_fetch' };
    const body = { model: 'claude-sonnet-4-5', max_tokens: 200, tools: [search], messages: [{ role: 'user', content: 'What changed in the news today?' }] };
    const tokensOf = (record: UsageRecordEntity) => costOf('claude-sonnet-4-5', { input_tokens: record.input_tokens, output_tokens: record.output_tokens });

    const whole = await postJson(`${gw.url}/v1/messages`, body, auth(org));
    expect(whole.status).toBe(200);
    expect(whole.body.usage.server_tool_use).toEqual({ web_search_requests: 1 });
    const record = await recordOf(gw, whole.headers.get('x-svc-request-id'), org.orgId);
    expect(record.usage_source).toBe('provider');
    expect(record.cost).toBeCloseTo(tokensOf(record) + SERVER_TOOL_FEES.web_search_requests, 12);

    const res = await fetch(`${gw.url}/v1/messages`, { method: 'POST', headers: { ...auth(org), 'content-type': 'application/json' }, body: JSON.stringify({ ...body, stream: true }) });
    expect(await res.text()).toContain('"server_tool_use":{"web_search_requests":1}');
    const streamed = await recordOf(gw, res.headers.get('x-svc-request-id'), org.orgId);
    expect(streamed).toMatchObject({ stream: true, usage_source: 'provider' });
    expect(streamed.cost).toBeCloseTo(tokensOf(streamed) + 0.01, 12);

    const fetched = await postJson(`${gw.url}/v1/messages`, { ...body, tools: [fetchTool] }, auth(org));
    expect(fetched.body.usage.server_tool_use).toEqual({ web_search_requests: 0, web_fetch_requests: 1 });
    const fetchRecord = await recordOf(gw, fetched.headers.get('x-svc-request-id'), org.orgId);
    expect(fetchRecord.cost).toBeCloseTo(tokensOf(fetchRecord), 12);
  });
});
