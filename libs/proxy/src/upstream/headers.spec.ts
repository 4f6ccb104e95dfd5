import { providerRegistry } from '../providers/registry';
import { ProviderDefinition } from '../providers/types';
import { forwardClientHeaders, forwardResponseHeaders, redactUrl } from './headers';

const provider = (id: string): ProviderDefinition => {
  const found = providerRegistry.get(id);
  if (!found) throw new Error(id);
  return found;
};

const CLIENT_HEADERS = {
  host: 'gateway.example',
  connection: 'keep-alive, x-custom-hop',
  'keep-alive': 'timeout=5',
  'proxy-authorization': 'Basic abc',
  'proxy-connection': 'keep-alive',
  te: 'trailers',
  trailer: 'x-checksum',
  'transfer-encoding': 'chunked',
  upgrade: 'h2c',
  'content-length': '123',
  'content-type': 'application/json',
  accept: 'application/json',
  'accept-encoding': 'gzip, br',
  'user-agent': 'OpenAI/JS 6.49.0',
  'x-svc-api-key': 'svc_sk_gateway',
  'x-svc-agent': 'billing-bot',
  'x-provider-key': 'sk-provider',
  authorization: 'Bearer svc_sk_gateway',
  'x-api-key': 'sk-ant-client',
  cookie: 'session=1',
  'x-forwarded-for': '203.0.113.7',
  'idempotency-key': 'idem-1',
  'x-stainless-os': 'Linux',
  'openai-organization': 'org-123',
  'openai-project': 'proj_456',
  'anthropic-beta': 'prompt-caching-2024-07-31',
  'anthropic-version': '2023-01-01',
  'http-referer': 'https://app.example',
  'x-title': 'My App',
  'x-custom-hop': 'x',
};

describe('forwardClientHeaders', () => {
  it('passes only the allowlist to a format-A provider', () => {
    expect(forwardClientHeaders(CLIENT_HEADERS, provider('openai'))).toEqual({
      'content-type': 'application/json',
      accept: 'application/json',
      'user-agent': 'OpenAI/JS 6.49.0',
      'openai-organization': 'org-123',
      'openai-project': 'proj_456',
    });
  });

  it('forwards anthropic-beta but not the client version to B', () => {
    expect(forwardClientHeaders(CLIENT_HEADERS, provider('anthropic'))).toEqual({
      'content-type': 'application/json',
      accept: 'application/json',
      'user-agent': 'OpenAI/JS 6.49.0',
      'anthropic-beta': 'prompt-caching-2024-07-31',
    });
  });

  it('forwards the attribution headers a provider entry lists', () => {
    const out = forwardClientHeaders(CLIENT_HEADERS, provider('openrouter'));
    expect(out['http-referer']).toBe('https://app.example');
    expect(out['x-title']).toBe('My App');
    expect(out).not.toHaveProperty('openai-organization');
  });

  it('never forwards hop-by-hop or gateway headers even when an entry allowlists them', () => {
    const reckless: ProviderDefinition = {
      ...provider('groq'),
      forwardHeaders: ['connection', 'transfer-encoding', 'x-svc-api-key', 'x-provider-key', 'authorization', 'x-api-key', 'cookie', 'x-custom-hop', 'host'],
    };
    expect(forwardClientHeaders(CLIENT_HEADERS, reckless)).toEqual({
      'content-type': 'application/json',
      accept: 'application/json',
      'user-agent': 'OpenAI/JS 6.49.0',
    });
  });

  it('joins repeated values and lower-cases names', () => {
    expect(forwardClientHeaders({ Accept: ['text/event-stream', 'application/json'] }, provider('groq'))).toEqual({
      accept: 'text/event-stream, application/json',
    });
  });
});

describe('forwardResponseHeaders', () => {
  it('keeps vendor ids and rate-limit details, drops framing, cookies and the gateway names', () => {
    const upstream = new Headers({
      'content-type': 'text/event-stream',
      'content-length': '10',
      'content-encoding': 'gzip',
      'transfer-encoding': 'chunked',
      connection: 'keep-alive',
      'set-cookie': '__cf_bm=abc',
      'x-request-id': 'req_1',
      'openai-processing-ms': '120',
      'x-ratelimit-remaining-requests': '99',
      'x-ratelimit-limit': '10',
      'anthropic-ratelimit-tokens-remaining': '1000',
      'retry-after': '3',
    });
    expect(forwardResponseHeaders(upstream)).toEqual({
      'content-type': 'text/event-stream',
      'x-request-id': 'req_1',
      'openai-processing-ms': '120',
      'x-ratelimit-remaining-requests': '99',
      'anthropic-ratelimit-tokens-remaining': '1000',
      'retry-after': '3',
    });
  });

  it("drops origin policies, the gateway's own names and what the response's Connection names", () => {
    const upstream = {
      connection: 'keep-alive, X-Hop',
      'x-hop': 'hop',
      'strict-transport-security': 'max-age=63072000; includeSubDomains',
      'access-control-allow-origin': '*',
      'idempotent-replayed': 'true',
      'x-svc-cost': '99',
      'x-gateway-org': 'org_forged',
      'x-ratelimit-reset': '1',
      'x-ratelimit-reset-requests': '6ms',
      'request-id': 'req_3',
    };
    expect(forwardResponseHeaders(upstream)).toEqual({ 'x-ratelimit-reset-requests': '6ms', 'request-id': 'req_3' });
  });

  it('accepts a plain header object', () => {
    expect(forwardResponseHeaders({ 'Request-Id': 'req_2', Connection: 'close' })).toEqual({ 'request-id': 'req_2' });
  });
});

describe('redactUrl', () => {
  it('masks the key query parameter', () => {
    expect(redactUrl('https://g.example/v1beta/models/m:generateContent?alt=sse&key=AIza-secret')).toBe(
      'https://g.example/v1beta/models/m:generateContent?alt=sse&key=***',
    );
    expect(redactUrl('https://api.openai.com/v1/chat/completions')).toBe('https://api.openai.com/v1/chat/completions');
  });
});
