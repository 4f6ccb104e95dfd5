import { isAbsoluteUrl, maskUrl } from './url-mask';

describe('maskUrl', () => {
  it.each([
    ['https://user:PASSWORD@host.example/x?a=1', 'https://user:***@host.example/x?a=1'],
    ['https://user:PASSWORD@host.example', 'https://user:***@host.example'],
    ['https://ghp_TOKEN@github.com/o/r.git', 'https://***@github.com/o/r.git'],
    ['redis://:PASSWORD@cache:6379/0', 'redis://:***@cache:6379/0'],
    ['postgres://svc:p@ss:w0rd@db.example:5432/app', 'postgres://svc:***@db.example:5432/app'],
    ['https://hooks.slack.com/services/T000/B000/CHATSECRETxyz123', 'https://hooks.slack.com/…z123'],
    ['https://hooks.zapier.com/hooks/catch/123/SECRETabc/', 'https://hooks.zapier.com/…abc/'],
    ['https://discord.com/api/webhooks/1234/SECRET-token', 'https://discord.com/…oken'],
    ['https://acme.webhook.office.com/webhookb2/SECRET@tenant/IncomingWebhook/SECRET2', 'https://acme.webhook.office.com/…RET2'],
    ['https://chat.example.org/hooks/SECRET', 'https://chat.example.org/…CRET'],
    ['https://u:PASSWORD@chat.example.org/hooks/SECRETSECRET', 'https://u:***@chat.example.org/…CRET'],
    ['https://g.example/v1/models?key=SECRET&alt=sse#access_token=SECRET2', 'https://g.example/v1/models?key=[REDACTED]&alt=sse#access_token=[REDACTED]'],
  ])('%s is logged as %s', (url, masked) => {
    expect(isAbsoluteUrl(url)).toBe(true);
    expect(maskUrl(url)).toBe(masked);
    expect(maskUrl(url)).not.toMatch(/SECRET|PASSWORD|TOKEN|p@ss/);
  });

  it('returns URLs without credentials as they are', () => {
    for (const url of ['https://api.example.com/v1/chat/completions', 'https://a.example/?q=1#top', 'http://127.0.0.1:8080', 'https://example.com/users/a@b.example']) {
      expect(maskUrl(url)).toBe(url);
    }
  });

  it('leaves a URL it masked as it is, so masking twice changes nothing', () => {
    for (const url of ['https://hooks.slack.com/services/T000/B000/CHATSECRETxyz123', 'https://u:PASSWORD@chat.example/hooks/SECRET', 'https://chat.example/a/b/c/d']) {
      const once = maskUrl(url, true);
      expect(maskUrl(once)).toBe(once);
      expect(maskUrl(once, true)).toBe(once);
    }
    expect(maskUrl('https://hooks.slack.com/…/SECRETSECRET')).toBe('https://hooks.slack.com/…CRET');
  });

  it('masks every path, keeping scheme and host, when asked to (logged bodies)', () => {
    expect(maskUrl('https://8.8.8.8/services/T0/B0/CHATSECRETpart', true)).toBe('https://8.8.8.8/…part');
    expect(maskUrl('https://chat.example/x/SECRET', true)).toBe('https://chat.example/…');
    expect(maskUrl('https://user:PASSWORD@chat.example/', true)).toBe('https://user:***@chat.example/');
    expect(maskUrl('https://chat.example', true)).toBe('https://chat.example');
  });

  it('looks only at strings that start like an absolute URL', () => {
    for (const value of ['application/json', '/v1/models?key=x', 'mailto:a@b.example', 'data:image/png;base64,AAAA', ' https://x', 'user:pw@host']) {
      expect(isAbsoluteUrl(value)).toBe(false);
    }
  });
});
