import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import { GatewayHarness, Json, openaiClient, PROVIDER_KEY, recordOf, startGateway } from './harness';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One step of a scripted upstream answer: bytes to write, a pause (ms), or `cut` (destroy the socket). */
type Step = string | Buffer | number | 'cut';

/**
 * A provider that answers every request with a 200 `text/event-stream` whose headers go out at
 * once, then writes `script` step by step on a real socket: events split anywhere (inside a UTF-8
 * character, between `\r` and `\n`), pauses, lines of any length.
 */
class ScriptedUpstream {
  script: Step[] = [];
  private server!: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      req.resume();
      req.on('end', async () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.flushHeaders();
        for (const step of this.script) {
          if (res.destroyed) return;
          if (typeof step === 'number') await sleep(step);
          else if (step === 'cut') return void res.socket?.destroy();
          else res.write(step);
        }
        res.end();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** A Gemini SSE event as Google writes it (CRLF CRLF). */
const gemini = (data: Json) => `data: ${JSON.stringify(data)}\r\n\r\n`;
const candidate = (text: string | undefined, extra: Json = {}) => ({ content: { role: 'model', parts: text === undefined ? [] : [{ text }] }, index: 0, ...extra });
/** A format-A chunk. */
const chunk = (delta: Json, extra: Json = {}) => `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\n\n`;

/** A format-B event. */
const message = (type: string, data: Json) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

/** The byte offset just inside a multi-byte character: splitting there cuts the character in two. */
function insideChar(event: string, char: string): number {
  const bytes = Buffer.from(event);
  return bytes.indexOf(Buffer.from(char)) + 1;
}

/** The SSE `data:` payloads of a client's stream, parsed (`[DONE]` kept as the string). */
function events(text: string): Array<Json | string> {
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => block.slice(6))
    .map((data) => (data === '[DONE]' ? data : (JSON.parse(data) as Json)));
}

const contentOf = (parsed: Array<Json | string>) =>
  parsed
    .filter((event): event is Json => typeof event !== 'string' && Array.isArray(event.choices))
    .map((event) => event.choices[0]?.delta?.content ?? '')
    .join('');

/** Streams as they cross the wire: headers at once, split events and characters, long lines, Gemini's edge objects. */
describe('gateway streaming on the wire (scripted upstream over real sockets)', () => {
  let gw: GatewayHarness;
  const upstream = new ScriptedUpstream();

  beforeAll(async () => {
    await upstream.start();
    gw = await startGateway({ env: { OPENAI_BASE_URL: `${upstream.url}/v1`, GEMINI_BASE_URL: upstream.url, ANTHROPIC_BASE_URL: upstream.url } });
  });
  afterAll(async () => {
    await gw.stop();
    await upstream.close();
  });

  /** Posts a stream request; resolves once the client has the response headers, with a reader for the rest. */
  async function open(path: string, body: Json) {
    const started = Date.now();
    const res = await fetch(`${gw.url}${path}`, {
      method: 'POST',
      headers: { 'X-SVC-API-Key': gw.key, 'X-Provider-Key': PROVIDER_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, stream: true }),
    });
    const headersAfterMs = Date.now() - started;
    const read = async () => {
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      const pieces: Buffer[] = [];
      const arrivals: number[] = [];
      for (let next = await reader.read(); !next.done; next = await reader.read()) {
        pieces.push(Buffer.from(next.value));
        arrivals.push(Date.now() - started);
      }
      return { text: Buffer.concat(pieces).toString('utf8'), arrivals };
    };
    return { res, headersAfterMs, read };
  }

  const chat = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] };
  const geminiChat = { model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'hi' }] };

  it('sends the status and headers as soon as the provider does, not with the first event (A and C)', async () => {
    // A reasoning model can think for a long time before its first event.
    upstream.script = [2000, chunk({ role: 'assistant', content: '' }), chunk({ content: 'late' }), 'data: [DONE]\n\n'];
    const a = await open('/v1/chat/completions', chat);
    expect(a.res.status).toBe(200);
    expect(a.res.headers.get('content-type')).toBe('text/event-stream');
    expect(a.res.headers.get('x-svc-request-id')).toMatch(/^gw_/);
    expect(a.headersAfterMs).toBeLessThan(1500);
    expect(contentOf(events((await a.read()).text))).toBe('late');

    upstream.script = [2000, gemini({ candidates: [candidate('late', { finishReason: 'STOP' })] })];
    const c = await open('/v1/gemini/chat/completions', geminiChat);
    expect([c.res.status, c.res.headers.get('cache-control'), c.res.headers.get('connection')]).toEqual([200, 'no-cache', 'keep-alive']);
    expect(c.headersAfterMs).toBeLessThan(1500);
    const { text } = await c.read();
    expect(contentOf(events(text))).toBe('late');
    expect(events(text).at(-1)).toBe('[DONE]');
  });

  it('relays a slow drip event by event, and the pieces of an event split across packets unchanged (A)', async () => {
    const split = chunk({ content: 'héllo 世界' });
    const cut = insideChar(split, '世');
    upstream.script = [chunk({ role: 'assistant', content: '' }), 300, Buffer.from(split).subarray(0, cut), 300, Buffer.from(split).subarray(cut), 300, chunk({}, { choices: [], usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } }), 'data: [DONE]\n\n'];
    const { res, read } = await open('/v1/chat/completions', chat);
    const { text, arrivals } = await read();
    // The first event reached the client while the provider was still writing (about 900 ms in all).
    expect(arrivals.length).toBeGreaterThanOrEqual(3);
    expect(arrivals[arrivals.length - 1] - arrivals[0]).toBeGreaterThan(500);
    expect(contentOf(events(text))).toBe('héllo 世界');
    expect(text.match(/data: \[DONE\]/g)).toHaveLength(1);
    expect(await recordOf(gw, res.headers.get('x-svc-request-id'))).toMatchObject({ status_code: 200, input_tokens: 3, output_tokens: 4, usage_source: 'provider' });
  });

  it('translates Gemini events split inside UTF-8 characters and between CR and LF without mojibake (C)', async () => {
    const first = gemini({ candidates: [candidate('héllo 世界 🎉 ')] });
    const last = gemini({ candidates: [candidate('ñandú 😀', { finishReason: 'STOP' })], usageMetadata: { promptTokenCount: 2, candidatesTokenCount: 6, totalTokenCount: 8 } });
    const a = insideChar(first, '世');
    const b = insideChar(first, '🎉') + 1;
    const bytes = Buffer.from(first);
    const lastBytes = Buffer.from(last);
    const c = insideChar(last, '😀') + 2;
    upstream.script = [
      ': keep-alive\r\n\r\n',
      bytes.subarray(0, a), 20, bytes.subarray(a, b), 20, bytes.subarray(b, bytes.length - 3), 20,
      // "\r" | "\n\r\n": the CRLF pair split across packets.
      bytes.subarray(bytes.length - 3, bytes.length - 2), 20, bytes.subarray(bytes.length - 2), 20,
      lastBytes.subarray(0, c), 20, lastBytes.subarray(c),
    ];
    const { res, read } = await open('/v1/gemini/chat/completions', { ...geminiChat, stream_options: { include_usage: true } });
    const parsed = events((await read()).text);
    expect(contentOf(parsed)).toBe('héllo 世界 🎉 ñandú 😀');
    expect(parsed.filter((event) => event === '[DONE]')).toHaveLength(1);
    expect(parsed.at(-1)).toBe('[DONE]');
    expect(parsed.at(-2)).toMatchObject({ choices: [], usage: { prompt_tokens: 2, completion_tokens: 6, total_tokens: 8 } });
    expect(await recordOf(gw, res.headers.get('x-svc-request-id'))).toMatchObject({ status_code: 200, input_tokens: 2, output_tokens: 6, usage_source: 'provider' });
  });

  it('translates a 2 MB Gemini event written in 64 KB pieces, then the rest of the stream (C)', async () => {
    const long = 'x'.repeat(2_000_000);
    const event = gemini({ candidates: [candidate(long)] });
    const pieces: Step[] = [];
    for (let at = 0; at < event.length; at += 65_536) pieces.push(event.slice(at, at + 65_536));
    upstream.script = [...pieces, gemini({ candidates: [candidate(' end', { finishReason: 'STOP' })] })];
    const parsed = events((await (await open('/v1/gemini/chat/completions', geminiChat)).read()).text);
    expect(contentOf(parsed)).toBe(`${long} end`);
    expect(parsed.at(-1)).toBe('[DONE]');
  });

  it("ends with Gemini's own error object sent mid-stream, translated, and no [DONE] (C)", async () => {
    upstream.script = [gemini({ candidates: [candidate('partial ')], usageMetadata: { promptTokenCount: 2, totalTokenCount: 2 } }), 20, gemini({ error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } })];
    const { res, read } = await open('/v1/gemini/chat/completions', geminiChat);
    const parsed = events((await read()).text);
    expect(contentOf(parsed)).toBe('partial ');
    expect(parsed.at(-1)).toMatchObject({ error: { message: 'The model is overloaded.', type: 'api_error', code: 'service_unavailable' } });
    expect(parsed).not.toContain('[DONE]');
    expect(await recordOf(gw, res.headers.get('x-svc-request-id'))).toMatchObject({ status_code: 200, input_tokens: 2, usage_source: 'estimate' });
  });

  it('answers a candidate stopped for safety without content, and a stream of empty candidates, in format A (C)', async () => {
    upstream.script = [gemini({ candidates: [candidate('kept ')] }), gemini({ candidates: [{ finishReason: 'SAFETY', index: 0, safetyRatings: [{ category: 'HARM_CATEGORY_HARASSMENT', probability: 'HIGH', blocked: true }] }] })];
    const safety = events((await (await open('/v1/gemini/chat/completions', geminiChat)).read()).text);
    expect(contentOf(safety)).toBe('kept ');
    expect(safety.at(-2)).toMatchObject({ choices: [{ finish_reason: 'content_filter', native_finish_reason: 'SAFETY' }] });
    expect(safety.at(-1)).toBe('[DONE]');

    // No candidate at all, no block reason: not a complete answer.
    upstream.script = [gemini({ candidates: [], usageMetadata: { promptTokenCount: 2, totalTokenCount: 2 } })];
    const empty = events((await (await open('/v1/gemini/chat/completions', geminiChat)).read()).text);
    expect(empty).toEqual([{ error: { message: 'The upstream stream ended before the response was complete', type: 'api_error', param: null, code: 'upstream_stream_incomplete' } }]);
  });

  it('ends a stream whose connection broke after its documented end as a complete one: no error event, 200, the provider usage, no breaker failure (A, B, C)', async () => {
    const breakers = async () => ((await (await fetch(`${gw.url}/v1/providers/health`)).json()) as Json).providers as Json[];
    const failures = async (provider: string) => (await breakers()).find((p) => p.provider === provider)?.failure_count ?? 0;
    const before = { openai: await failures('openai'), anthropic: await failures('anthropic'), gemini: await failures('gemini') };

    // A, with the OpenAI SDK: `[DONE]`, then the connection is reset instead of ending the chunked body.
    upstream.script = [chunk({ role: 'assistant', content: '' }), chunk({ content: 'whole' }), chunk({}, { choices: [], usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } }), 'data: [DONE]\n\n', 50, 'cut'];
    const { data: stream, response } = await openaiClient(gw)
      .chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], stream: true })
      .withResponse();
    let text = '';
    for await (const part of stream) text += part.choices[0]?.delta.content ?? '';
    expect(text).toBe('whole');
    expect(await recordOf(gw, response.headers.get('x-svc-request-id'))).toMatchObject({ status_code: 200, input_tokens: 3, output_tokens: 1, usage_source: 'provider' });
    // The raw stream has no error event after `[DONE]`.
    const raw = await (await open('/v1/chat/completions', chat)).read();
    expect(events(raw.text).at(-1)).toBe('[DONE]');
    expect(raw.text).not.toContain('"error"');

    // B, with the Anthropic SDK, which raises on an `event: error` even after `message_stop`.
    const usage = { input_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 };
    upstream.script = [
      message('message_start', { message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-6', content: [], stop_reason: null, stop_sequence: null, usage } }),
      message('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
      message('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'whole answer' } }),
      message('content_block_stop', { index: 0 }),
      message('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { ...usage, output_tokens: 3 } }),
      message('message_stop', {}),
      50,
      'cut',
    ];
    const anthropic = new Anthropic({ apiKey: gw.key, baseURL: gw.url, defaultHeaders: { 'X-Provider-Key': PROVIDER_KEY }, maxRetries: 0 });
    const messages = anthropic.messages.stream({ model: 'claude-sonnet-4-6', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] });
    const final = await messages.finalMessage();
    expect(final.content).toMatchObject([{ type: 'text', text: 'whole answer' }]);
    expect(final.usage).toMatchObject({ input_tokens: 5, output_tokens: 3 });
    const { response: bResponse } = await messages.withResponse();
    expect(await recordOf(gw, bResponse.headers.get('x-svc-request-id'))).toMatchObject({ status_code: 200, input_tokens: 5, output_tokens: 3, usage_source: 'provider' });

    // C: every candidate finished, then the connection is reset: the usage chunk asked for and `[DONE]` still close it.
    upstream.script = [gemini({ candidates: [candidate('whole', { finishReason: 'STOP' })], usageMetadata: { promptTokenCount: 2, candidatesTokenCount: 1, totalTokenCount: 3 } }), 50, 'cut'];
    const c = await open('/v1/gemini/chat/completions', { ...geminiChat, stream_options: { include_usage: true } });
    const parsed = events((await c.read()).text);
    expect(contentOf(parsed)).toBe('whole');
    expect(parsed.slice(-2)).toEqual([expect.objectContaining({ choices: [], usage: { prompt_tokens: 2, completion_tokens: 1, total_tokens: 3 } }), '[DONE]']);
    expect(await recordOf(gw, c.res.headers.get('x-svc-request-id'))).toMatchObject({ status_code: 200, output_tokens: 1, usage_source: 'provider' });

    expect({ openai: await failures('openai'), anthropic: await failures('anthropic'), gemini: await failures('gemini') }).toEqual(before);
  });

  it('still ends a stream broken before its end with an error event, recorded as 502 (A)', async () => {
    upstream.script = [chunk({ role: 'assistant', content: '' }), chunk({ content: 'cut off' }), 50, 'cut'];
    const { res, read } = await open('/v1/chat/completions', chat);
    const parsed = events((await read()).text);
    expect(contentOf(parsed)).toBe('cut off');
    expect(parsed.at(-1)).toMatchObject({ error: { type: 'api_error', code: 'upstream_stream_error' } });
    expect(await recordOf(gw, res.headers.get('x-svc-request-id'))).toMatchObject({ status_code: 502, usage_source: 'estimate' });
  });
});
