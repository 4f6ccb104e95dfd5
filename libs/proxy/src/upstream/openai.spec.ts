import { GatewayError } from '@svc/platform';
import { providerRegistry, resolveBaseUrl } from '../providers/registry';
import { resolveRoute } from '../providers/routing';
import { ProviderDefinition } from '../providers/types';
import { buildAnthropicChatRequest, buildAnthropicMessagesRequest } from './anthropic';
import { buildChatCompletionsRequest, needsResponseTranslation } from './build';
import { buildOpenAIChatRequest, buildOpenAIEmbeddingsRequest, buildPassthroughRequest, clientWantsStreamUsage } from './openai';
import { PreparedUpstreamRequest } from './types';

const provider = (id: string): ProviderDefinition => {
  const found = providerRegistry.get(id);
  if (!found) throw new Error(id);
  return found;
};

const clientHeaders = {
  'content-type': 'application/json',
  'content-length': '999',
  'x-svc-api-key': 'svc_sk_gateway',
  authorization: 'Bearer svc_sk_gateway',
  'x-provider-key': 'sk-client',
  'user-agent': 'curl/8.5',
  'anthropic-version': '2023-01-01',
  'anthropic-beta': 'tools-2024-05-16',
};

const bodyOf = (request: PreparedUpstreamRequest): Record<string, unknown> => JSON.parse(String(request.body));

describe('forwarding the client bytes', () => {
  const raw = Buffer.from('{"model":"gpt-4o",  "messages":[{"role":"user","content":"x"}],"unknown_field":1}');
  const body = JSON.parse(raw.toString()) as Record<string, unknown>;

  it('sends the bytes as they came when nothing in the body changes', () => {
    const request = buildOpenAIChatRequest({ provider: provider('openai'), apiKey: 'k', clientHeaders, body, rawBody: raw, upstreamModel: 'gpt-4o' });
    expect(request.body).toBe(raw);
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['content-length']).toBe(String(raw.length));
  });

  it('re-serializes when the model is rewritten or usage is injected into a stream', () => {
    const aliased = buildOpenAIChatRequest({ provider: provider('openai'), apiKey: 'k', clientHeaders, body, rawBody: raw, upstreamModel: 'gpt-4o-2024-08-06' });
    expect(aliased.body).not.toBe(raw);
    expect(bodyOf(aliased)).toMatchObject({ model: 'gpt-4o-2024-08-06', unknown_field: 1 });
    const streamRaw = Buffer.from('{"model":"gpt-4o","stream":true,"messages":[{"role":"user","content":"x"}]}');
    const streamed = buildOpenAIChatRequest({ provider: provider('openai'), apiKey: 'k', clientHeaders, body: JSON.parse(streamRaw.toString()), rawBody: streamRaw });
    expect(bodyOf(streamed)).toMatchObject({ stream_options: { include_usage: true } });
  });
});

describe('format A and D chat requests', () => {
  it('posts to {base}/chat/completions with the bearer key and a recomputed content-length', () => {
    const body = { model: 'gpt-4o', messages: [{ role: 'user', content: 'héllo' }] };
    const request = buildOpenAIChatRequest({ provider: provider('openai'), apiKey: 'sk-upstream', clientHeaders, body });
    expect(request.url).toBe('https://api.openai.com/v1/chat/completions');
    expect(request.method).toBe('POST');
    expect(request.stream).toBe(false);
    expect(request.headers).toEqual({
      'content-type': 'application/json',
      'user-agent': 'curl/8.5',
      authorization: 'Bearer sk-upstream',
      'content-length': String(Buffer.byteLength(String(request.body))),
    });
    expect(bodyOf(request)).toEqual(body);
  });

  it('keeps the base path of D providers and honours the base URL override', () => {
    const groq = provider('groq');
    const body = { model: 'llama-3.3-70b-versatile', messages: [] };
    expect(buildOpenAIChatRequest({ provider: groq, apiKey: 'gsk', clientHeaders, body }).url).toBe(
      'https://api.groq.com/openai/v1/chat/completions',
    );
    const baseUrl = resolveBaseUrl(groq, { groq: 'http://127.0.0.1:9999/mock/v1' });
    expect(buildOpenAIChatRequest({ provider: groq, baseUrl, apiKey: 'gsk', clientHeaders, body }).url).toBe(
      'http://127.0.0.1:9999/mock/v1/chat/completions',
    );
  });

  it('injects stream_options.include_usage on streaming requests and keeps other stream options', () => {
    const body = { model: 'gpt-4o', messages: [], stream: true, stream_options: { include_obfuscation: false } };
    const request = buildOpenAIChatRequest({ provider: provider('openai'), apiKey: 'k', clientHeaders, body });
    expect(request.stream).toBe(true);
    expect(request.headers.accept).toBe('text/event-stream');
    expect(bodyOf(request).stream_options).toEqual({ include_obfuscation: false, include_usage: true });
    expect(body.stream_options).toEqual({ include_obfuscation: false });
    expect(clientWantsStreamUsage(body)).toBe(false);
  });

  it('injects on D providers, overriding a client include_usage: false', () => {
    const body = { model: 'deepseek-chat', messages: [], stream: true, stream_options: { include_usage: false } };
    const request = buildOpenAIChatRequest({ provider: provider('deepseek'), apiKey: 'k', clientHeaders, body });
    expect(bodyOf(request).stream_options).toEqual({ include_usage: true });
  });

  it('does not inject on non-streaming requests or providers that always report usage', () => {
    const plain = buildOpenAIChatRequest({ provider: provider('openai'), apiKey: 'k', clientHeaders, body: { model: 'gpt-4o', messages: [] } });
    expect(bodyOf(plain)).not.toHaveProperty('stream_options');
    const mistral = buildOpenAIChatRequest({
      provider: provider('mistral'),
      apiKey: 'k',
      clientHeaders,
      body: { model: 'mistral-small-latest', messages: [], stream: true },
    });
    expect(bodyOf(mistral)).toEqual({ model: 'mistral-small-latest', messages: [], stream: true });
  });

  it('rewrites the model to the upstream model of an alias or provider/model route', () => {
    const route = resolveRoute({ model: 'groq/llama-3.3-70b-versatile' });
    const request = buildChatCompletionsRequest({
      provider: route.provider,
      apiKey: 'k',
      clientHeaders,
      body: { model: route.requestedModel, messages: [], temperature: 0.2 },
      upstreamModel: route.upstreamModel,
    });
    expect(bodyOf(request)).toEqual({ model: 'llama-3.3-70b-versatile', messages: [], temperature: 0.2 });
  });

  it('sends no credential for a keyless self-hosted server', () => {
    const request = buildOpenAIChatRequest({ provider: provider('ollama'), clientHeaders, body: { model: 'llama3.2', messages: [] } });
    expect(request.url).toBe('http://localhost:11434/v1/chat/completions');
    expect(request.headers).not.toHaveProperty('authorization');
  });

  it('uses an organization target credential form', () => {
    const target = providerRegistry.withTargets([{ id: 'corp', baseUrl: 'https://llm.corp.example/v1', auth: 'x-api-key' }]).get('corp');
    if (!target) throw new Error('target');
    const request = buildOpenAIChatRequest({ provider: target, apiKey: 'corp-key', clientHeaders, body: { model: 'm', messages: [] } });
    expect(request.url).toBe('https://llm.corp.example/v1/chat/completions');
    expect(request.headers['x-api-key']).toBe('corp-key');
    expect(request.headers).not.toHaveProperty('authorization');
  });

  it('rejects a body that is not a JSON object', () => {
    expect(() => buildOpenAIChatRequest({ provider: provider('openai'), clientHeaders, body: [1, 2] })).toThrow(GatewayError);
  });
});

describe('embeddings', () => {
  it('posts to {base}/embeddings on providers that serve them', () => {
    const request = buildOpenAIEmbeddingsRequest({
      provider: provider('mistral'),
      apiKey: 'k',
      clientHeaders,
      body: { model: 'mistral-embed', input: 'hi' },
    });
    expect(request.url).toBe('https://api.mistral.ai/v1/embeddings');
  });

  it('answers 400 elsewhere', () => {
    expect(() =>
      buildOpenAIEmbeddingsRequest({ provider: provider('anthropic'), apiKey: 'k', clientHeaders, body: { model: 'x', input: 'hi' } }),
    ).toThrow(expect.objectContaining({ status: 400, body: expect.objectContaining({ code: 'embeddings_not_supported' }) }));
  });
});

describe('D catch-all pass-through', () => {
  it('forwards any path below the base URL, minus the gateway api_key query parameter', () => {
    const request = buildPassthroughRequest({
      provider: provider('together'),
      apiKey: 'tk',
      clientHeaders,
      method: 'get',
      path: '/models',
      query: { api_key: 'svc_sk_gateway', type: 'chat' },
    });
    expect(request.method).toBe('GET');
    expect(request.url).toBe('https://api.together.xyz/v1/models?type=chat');
    expect(request.body).toBeUndefined();
    expect(request.headers).not.toHaveProperty('content-type');
    expect(request.headers.authorization).toBe('Bearer tk');
  });

  it('injects include_usage on chat paths and passes raw bodies with their content type', () => {
    const chat = buildPassthroughRequest({
      provider: provider('groq'),
      apiKey: 'k',
      clientHeaders,
      method: 'POST',
      path: 'chat/completions',
      body: { model: 'llama', messages: [], stream: true },
    });
    expect(bodyOf(chat).stream_options).toEqual({ include_usage: true });
    const multipart = new TextEncoder().encode('--b\r\n...');
    const audio = buildPassthroughRequest({
      provider: provider('groq'),
      apiKey: 'k',
      clientHeaders: { 'content-type': 'multipart/form-data; boundary=b' },
      method: 'POST',
      path: 'audio/transcriptions',
      body: multipart,
    });
    expect(audio.body).toEqual(Buffer.from(multipart));
    expect(audio.headers['content-type']).toBe('multipart/form-data; boundary=b');
    expect(audio.headers['content-length']).toBe(String(multipart.byteLength));
  });

  it.each(['../admin', 'a/../../b', '%2e%2e/x', 'a//b', 'http://evil.example/x', 'a\\b'])('refuses the path %s', (path) => {
    expect(() => buildPassthroughRequest({ provider: provider('groq'), clientHeaders, method: 'GET', path })).toThrow(GatewayError);
  });
});

describe('format B', () => {
  it('posts messages with x-api-key and the fixed version, replacing the client version', () => {
    const body = { model: 'claude-sonnet-4-5', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }], stream: true };
    const request = buildAnthropicMessagesRequest({ provider: provider('anthropic'), apiKey: 'sk-ant', clientHeaders, body });
    expect(request.url).toBe('https://api.anthropic.com/v1/messages');
    expect(request.stream).toBe(true);
    expect(request.headers).toMatchObject({
      'x-api-key': 'sk-ant',
      'anthropic-version': '2023-06-01',
      'anthropic-beta': 'tools-2024-05-16',
    });
    expect(request.headers).not.toHaveProperty('authorization');
    expect(request.headers).not.toHaveProperty('x-provider-key');
    expect(bodyOf(request)).toEqual(body);
  });

  it('sends a format-A request for a B model to the vendor OpenAI-compatible endpoint', () => {
    const anthropic = provider('anthropic');
    const request = buildAnthropicChatRequest({
      provider: anthropic,
      baseUrl: resolveBaseUrl(anthropic, { anthropic: 'http://mock:1234' }),
      apiKey: 'sk-ant',
      clientHeaders,
      body: { model: 'claude-sonnet-4-5', messages: [], stream: true },
    });
    expect(request.url).toBe('http://mock:1234/v1/chat/completions');
    expect(request.headers['x-api-key']).toBe('sk-ant');
    expect(bodyOf(request).stream_options).toEqual({ include_usage: true });
    expect(needsResponseTranslation(anthropic)).toBe(false);
  });

  it('refuses other providers on the messages route', () => {
    expect(() => buildAnthropicMessagesRequest({ provider: provider('openai'), clientHeaders, body: { model: 'gpt-4o' } })).toThrow(
      GatewayError,
    );
  });
});
