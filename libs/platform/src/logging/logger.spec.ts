import { Writable } from 'node:stream';
import { createLogger } from './logger';
import { CENSOR, redactSecrets } from './redact';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, stream, text: () => lines.join('') };
}

/** Every secret of the cases below is `sec-<n>`; none of them may reach the stream. */
const SECRET = /sec-\d+/;

describe('createLogger', () => {
  it('redacts credentials in headers and bodies', () => {
    const { stream, text } = capture();
    const logger = createLogger({ LOG_LEVEL: 'info' }, 'test', stream);
    logger.info(
      {
        req: {
          headers: {
            authorization: 'Bearer sec-1',
            'x-svc-api-key': 'sec-2',
            'x-provider-key': 'sec-3',
            'content-type': 'application/json',
          },
        },
        body: { plaintext_key: 'sec-4', password: 'sec-5', model: 'gpt-4o' },
      },
      'request',
    );
    expect(text()).not.toMatch(SECRET);
    expect(text()).toContain(CENSOR);
    expect(text()).toContain('application/json');
    expect(text()).toContain('gpt-4o');
  });

  it('redacts header names in any letter case, as clients send them', () => {
    const { stream, text } = capture();
    createLogger({ LOG_LEVEL: 'info' }, 'test', stream).warn({
      headers: {
        Authorization: 'Bearer sec-1',
        'X-Provider-Key': 'sec-2',
        'X-SVC-API-Key': 'sec-3',
        'X-Api-Key': 'sec-4',
        Cookie: 'sid=sec-5',
        'Set-Cookie': ['sid=sec-6'],
        'Proxy-Authorization': 'Basic sec-7',
        'X-Runner-Proof': 'sec-8',
        Accept: 'text/event-stream',
      },
    });
    expect(text()).not.toMatch(SECRET);
    expect(JSON.parse(text()).headers).toEqual({
      Authorization: CENSOR, 'X-Provider-Key': CENSOR, 'X-SVC-API-Key': CENSOR, 'X-Api-Key': CENSOR, Cookie: CENSOR,
      'Set-Cookie': CENSOR, 'Proxy-Authorization': CENSOR, 'X-Runner-Proof': CENSOR, Accept: 'text/event-stream',
    });
  });

  it('redacts at any depth: request, upstream and nested bodies, arrays', () => {
    const { stream, text } = capture();
    createLogger({ LOG_LEVEL: 'info' }, 'test', stream).error({
      req: { headers: { Authorization: 'Bearer sec-1' }, raw: { headers: { 'x-svc-api-key': 'sec-2' } } },
      upstream: { headers: { authorization: 'Bearer sec-3', 'X-Goog-Api-Key': 'sec-4' }, status: 502 },
      a: { b: { api_key: 'sec-5', c: { d: { e: { API_KEY: 'sec-6', kept: 'visible-1' } } } } },
      body: {
        secret: 'sec-7', refresh_token: 'sec-8', access_token: 'sec-9', Password: 'sec-10', client_secret: 'sec-11',
        messages: [{ role: 'user', content: 'visible-2' }], max_tokens: 12,
      },
      items: [{ token: 'sec-12' }, { plaintextKey: 'sec-13' }],
    });
    const line = JSON.parse(text());
    expect(text()).not.toMatch(SECRET);
    expect(line.a.b.c.d.e.kept).toBe('visible-1');
    expect(line.body.messages[0].content).toBe('visible-2');
    expect(line.body.max_tokens).toBe(12);
    expect(line.upstream.status).toBe(502);
  });

  it('redacts errors (keeping message and stack), child bindings and credential query values in URLs', () => {
    const { stream, text } = capture();
    const logger = createLogger({ LOG_LEVEL: 'info' }, 'test', stream);
    const error = Object.assign(new Error('upstream refused'), { config: { headers: { Authorization: 'Bearer sec-1' } } });
    logger.child({ api_key: 'sec-2', component: 'proxy' }).child({ upstream_headers: { 'X-Provider-Key': 'sec-5' } }).error(
      { err: error, url: '/v1/models?api_key=sec-3&limit=5', upstream: { url: 'https://g.example/v1?key=sec-4' } },
      'failed',
    );
    const line = JSON.parse(text());
    expect(text()).not.toMatch(SECRET);
    expect(line.err.message).toBe('upstream refused');
    expect(line.err.stack).toContain('upstream refused');
    expect(line.err.type).toBe('Error');
    expect(line.component).toBe('proxy');
    expect(line.url).toBe('/v1/models?api_key=[REDACTED]&limit=5');
    expect(error.config.headers.Authorization).toBe('Bearer sec-1');
  });

  it('logs nothing of a secret passed as the only argument either', () => {
    const { stream, text } = capture();
    createLogger({ LOG_LEVEL: 'info' }, 'test', stream).error(Object.assign(new Error('boom'), { token: 'sec-1' }));
    expect(text()).not.toMatch(SECRET);
    expect(JSON.parse(text()).msg).toBe('boom');
  });
});

describe('redactSecrets', () => {
  it('returns the very same object when there is nothing to redact, and never changes its input', () => {
    const clean = { a: { b: [1, 2, { c: 'x' }] }, model: 'm' };
    expect(redactSecrets(clean)).toBe(clean);
    const dirty = { a: { token: 't' }, b: { c: 1 } };
    const redacted = redactSecrets(dirty);
    expect(redacted).toEqual({ a: { token: CENSOR }, b: { c: 1 } });
    expect(dirty.a.token).toBe('t');
    expect(redacted.b).toBe(dirty.b);
  });

  it('survives cycles and leaves class instances (Buffers, Dates, Maps) alone', () => {
    const cyclic: Record<string, unknown> = { secret: 's' };
    cyclic.self = cyclic;
    expect((redactSecrets(cyclic) as Record<string, unknown>).secret).toBe(CENSOR);
    const date = new Date(0);
    expect(redactSecrets({ at: date }).at).toBe(date);
  });
});
