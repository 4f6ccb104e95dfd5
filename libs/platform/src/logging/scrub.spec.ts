import { containsSecret, scrubEmbeddedUrls, scrubSecrets, secretsOfUrl } from './scrub';

describe('scrubSecrets', () => {
  it('replaces a known secret as written, percent-encoded and JSON-escaped, and nothing else', () => {
    const key = 'sk-abc+def/ghi"jk';
    const text = [
      `Bearer ${key}`,
      `?key=${encodeURIComponent(key)}&alt=sse`,
      JSON.stringify({ headers: { authorization: key } }),
      'sk-abc alone is not the key',
    ].join(' | ');
    const scrubbed = scrubSecrets(text, [key]);
    expect(scrubbed).toBe('Bearer [REDACTED] | ?key=[REDACTED]&alt=sse | {"headers":{"authorization":"[REDACTED]"}} | sk-abc alone is not the key');
    expect(containsSecret(text, [key])).toBe(true);
    expect(containsSecret(scrubbed, [key])).toBe(false);
  });

  it('returns the text itself when no secret occurs, and ignores empty values and values under 4 characters', () => {
    const text = 'HTTP 500: upstream exploded at the token bucket';
    expect(scrubSecrets(text, ['sk-not-here-1234', null, undefined, '', 'at', 'the', 'oken', 'bucke'])).toBe(text);
  });

  it('replaces a secret of 4 to 7 characters only where it stands as a whole token, never a bare JSON token', () => {
    const key = 'hunter2';
    const text = `{"error":{"message":"Incorrect API key provided: ${key}. Headers: Authorization: Bearer ${key}; url: /v1/models?key=${key}&x=1","hint":"hunter22 xhunter2 hunter2-b"}}`;
    expect(scrubSecrets(text, [key])).toBe(
      '{"error":{"message":"Incorrect API key provided: [REDACTED]. Headers: Authorization: Bearer [REDACTED]; url: /v1/models?key=[REDACTED]&x=1","hint":"hunter22 xhunter2 hunter2-b"}}',
    );
    expect(scrubSecrets('model gpt-4o-mini is not available; mini', ['mini'])).toBe('model gpt-4o-mini is not available; [REDACTED]');
    expect(scrubSecrets('{"key":"p@ss"}', ['p@ss'])).toBe('{"key":"[REDACTED]"}');
    // Replacing a bare JSON token would break the JSON it stands in.
    for (const value of ['null', 'true', '123456', '1e10']) expect(scrubSecrets(`{"param":${value},"code":"${value}"}`, [value])).toBe(`{"param":${value},"code":"${value}"}`);
    // From 8 characters on, every occurrence goes, inside longer words too.
    expect(scrubSecrets('hunter22 xhunter22x', ['hunter22'])).toBe('[REDACTED] x[REDACTED]x');
  });

  it('replaces the longest secret first, so a path goes whole before its segments', () => {
    expect(scrubSecrets('url=/services/T0/B0/abcdefgh1234 seg=abcdefgh1234', ['abcdefgh1234', '/services/T0/B0/abcdefgh1234'])).toBe('url=[REDACTED] seg=[REDACTED]');
  });
});

describe('secretsOfUrl', () => {
  it('names user info and credential query values, not the rest of an ordinary URL', () => {
    expect(secretsOfUrl('https://alice:p%40ss-word@api.example.com/v1/models?key=AIza-secret-1&alt=sse')).toEqual(['alice', 'alice', 'p%40ss-word', 'p@ss-word', 'AIza-secret-1']);
    expect(secretsOfUrl('https://receiver.example.com/hooks-in/orders?limit=5')).toEqual([]);
  });

  it('names the path of an incoming webhook (by host or path, or when asked), whole and by long segments', () => {
    const slack = 'https://hooks.slack.com/services/T000/B000/XXXXsecretXXXX';
    expect(secretsOfUrl(slack)).toEqual([slack, '/services/T000/B000/XXXXsecretXXXX', 'services', 'services', 'XXXXsecretXXXX', 'XXXXsecretXXXX']);
    const own = 'https://chat.example.org/in/abcdefghijkl?x=1';
    expect(secretsOfUrl(own)).toEqual([]);
    expect(secretsOfUrl(own, true)).toEqual([own, '/in/abcdefghijkl?x=1', 'abcdefghijkl', 'abcdefghijkl']);
  });

  it('treats a string that is not a URL as the secret itself', () => {
    expect(secretsOfUrl('not a url')).toEqual(['not a url']);
  });
});

describe('scrubEmbeddedUrls', () => {
  it('masks user info, credential query values and webhook paths of URLs inside text', () => {
    const text = 'Request cannot be constructed from a URL that includes credentials: https://bob:hunter2-long@db.example/x?token=t0k3n&page=2 (then https://hooks.slack.com/services/T0/B0/secretsecret)';
    expect(scrubEmbeddedUrls(text)).toBe(
      'Request cannot be constructed from a URL that includes credentials: https://bob:***@db.example/x?token=[REDACTED]&page=2 (then https://hooks.slack.com/…cret)',
    );
  });

  it('returns text without credentials in URLs as it is', () => {
    const text = 'connect ECONNREFUSED 127.0.0.1:6379 while calling https://api.example.com/v1/models';
    expect(scrubEmbeddedUrls(text)).toBe(text);
  });
});
