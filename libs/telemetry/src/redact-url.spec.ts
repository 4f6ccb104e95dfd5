import { isSensitiveParam, redactQuery, redactUrl } from './redact-url';

describe('redactUrl', () => {
  it.each([
    ['/v1/models?api_key=sk-1', '/v1/models?api_key=[REDACTED]'],
    ['/v1/models?API_KEY=sk-1&limit=5', '/v1/models?API_KEY=[REDACTED]&limit=5'],
    ['/x?key=AIza-1&alt=sse', '/x?key=[REDACTED]&alt=sse'],
    ['/x?access_token=a&refresh_token=b&id_token=c&token=d', '/x?access_token=[REDACTED]&refresh_token=[REDACTED]&id_token=[REDACTED]&token=[REDACTED]'],
    ['/x?password=p&client_secret=s&sig=z&X-Amz-Signature=q', '/x?password=[REDACTED]&client_secret=[REDACTED]&sig=[REDACTED]&X-Amz-Signature=[REDACTED]'],
    ['/x?api%5Fkey=sk-1', '/x?api%5Fkey=[REDACTED]'],
    ['/x?model=gpt-4o&stream=true', '/x?model=gpt-4o&stream=true'],
    ['/x', '/x'],
    ['/x?flag', '/x?flag'],
    ['https://user:pass@host.example/v1?key=k#frag', 'https://host.example/v1?key=[REDACTED]'],
  ])('%s -> %s', (input, output) => {
    expect(redactUrl(input)).toBe(output);
  });

  it('keeps the other parameters exactly as written', () => {
    expect(redactQuery('q=a%20b&token=t&x=1+2')).toBe('q=a%20b&token=[REDACTED]&x=1+2');
  });

  it('recognizes credential parameter names whatever their case or separator', () => {
    for (const name of ['api_key', 'apiKey', 'api-key', 'X-Api-Key', 'key', 'Token', 'access_token', 'secret', 'Password', 'code']) {
      expect({ name, sensitive: isSensitiveParam(name) }).toEqual({ name, sensitive: true });
    }
    for (const name of ['model', 'limit', 'stream', 'cursor', 'q']) expect({ name, sensitive: isSensitiveParam(name) }).toEqual({ name, sensitive: false });
  });
});
