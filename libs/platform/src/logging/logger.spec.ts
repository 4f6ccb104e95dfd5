import { Writable } from 'node:stream';
import { createLogger } from './logger';
import { CENSOR, CIRCULAR, TRUNCATED, redactSecrets } from './redact';

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

  it('redacts credentials named by their ending, not only the listed names; counters stay', () => {
    const { stream, text } = capture();
    createLogger({ LOG_LEVEL: 'info' }, 'test', stream).info({
      headers: { 'X-Auth-Token': 'sec-1', 'X-Access-Token': 'sec-2' },
      body: { auth_token: 'sec-3', apiToken: 'sec-4', aws_secret_access_key: 'sec-5', app_secret: 'sec-6', admin_password: 'sec-7', credentials: { user: 'sec-8' } },
      input_tokens: 12,
      max_tokens: 34,
      key_id: 'key_1',
    });
    expect(text()).not.toMatch(SECRET);
    expect(JSON.parse(text())).toMatchObject({ input_tokens: 12, max_tokens: 34, key_id: 'key_1', body: { auth_token: CENSOR, credentials: CENSOR } });
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

  it('masks user info of every URL and the path of incoming-webhook URLs, in headers and bodies', () => {
    const { stream, text } = capture();
    createLogger({ LOG_LEVEL: 'info' }, 'test', stream).warn({
      upstream: {
        headers: { Referer: 'https://alice:sec-1@app.example/page', 'X-Forwarded-Url': 'redis://:sec-2@cache:6379/0' },
        url: 'https://sec-3@git.example/o/r.git',
        target: 'https://api.example.com/v1/chat/completions',
      },
      body: {
        notify: 'https://hooks.slack.com/services/T000/B000/CHATsec-4xyz123',
        channels: ['https://discord.com/api/webhooks/1234/sec-5-discord-token', 'https://chat.example.org/hooks/sec-6abcdefgh'],
        dsn: 'mongodb+srv://svc:sec-7@cluster0.example.net/db?retryWrites=true',
      },
    });
    const line = JSON.parse(text());
    expect(text()).not.toMatch(SECRET);
    expect(line.upstream.headers).toEqual({ Referer: 'https://alice:***@app.example/page', 'X-Forwarded-Url': 'redis://:***@cache:6379/0' });
    expect(line.upstream.url).toBe('https://***@git.example/o/r.git');
    expect(line.upstream.target).toBe('https://api.example.com/v1/chat/completions');
    expect(line.body.notify).toBe('https://hooks.slack.com/…z123');
    expect(line.body.channels).toEqual(['https://discord.com/…oken', 'https://chat.example.org/…efgh']);
    expect(line.body.dsn).toBe('mongodb+srv://svc:***@cluster0.example.net/db?retryWrites=true');
  });

  it('logs what nests deeper than 8 levels as [TRUNCATED], never as it is', () => {
    const { stream, text } = capture();
    createLogger({ LOG_LEVEL: 'info' }, 'test', stream).info({
      body: { metadata: { a: { b: { c: { d: { e: { f: { g: { h: { i: { api_key: 'sec-1' } } }, kept: 'visible-1' } } } } } } } },
      list: [[[[[[[[[{ token: 'sec-2' }]]]]]]]]],
    });
    const line = JSON.parse(text());
    expect(text()).not.toMatch(SECRET);
    expect(line.body.metadata.a.b.c.d.e.f).toEqual({ g: TRUNCATED, kept: 'visible-1' });
    expect(line.list[0][0][0][0][0][0][0]).toEqual([TRUNCATED]);
  });

  it('redacts an object logged twice both times, and logs a cycle as [Circular]', () => {
    const { stream, text } = capture();
    const shared = { token: 'sec-1', model: 'm' };
    const cyclic: Record<string, unknown> = { secret: 'sec-2', name: 'visible-1' };
    cyclic.self = cyclic;
    createLogger({ LOG_LEVEL: 'info' }, 'test', stream).info({ first: shared, again: { shared }, cyclic });
    const line = JSON.parse(text());
    expect(text()).not.toMatch(SECRET);
    expect(line.again.shared).toEqual({ token: CENSOR, model: 'm' });
    expect(line.cyclic).toEqual({ secret: CENSOR, name: 'visible-1', self: CIRCULAR });
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
    const clean = {
      a: { b: [1, 2, { c: 'x' }] },
      model: 'm',
      upstream: { url: 'https://api.example.com/v1/models?limit=5', headers: { referer: 'https://app.example/x', accept: '*/*' } },
    };
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

describe('createLogger: URLs inside text', () => {
  it('masks credentials of URLs inside error messages and stacks, logged under err or alone', () => {
    const { stream, lines } = capture();
    const logger = createLogger({ LOG_LEVEL: 'info' }, 'test', stream);
    // undici's fetch names the whole URL in this error.
    const error = new TypeError('Request cannot be constructed from a URL that includes credentials: https://svc:sec-1@db.example/x?key=sec-2&page=2');
    logger.error({ err: error }, 'fetch failed');
    logger.error(error);
    logger.warn({ err: new Error('wrapped', { cause: new Error('GET https://g.example/v1beta/models?key=sec-3 failed') }) }, 'outer');
    expect(lines.join('')).not.toMatch(SECRET);
    const [first, alone, wrapped] = lines.map((line) => JSON.parse(line));
    expect(first.err.message).toBe('Request cannot be constructed from a URL that includes credentials: https://svc:***@db.example/x?key=[REDACTED]&page=2');
    expect(first.err.stack).toContain('https://svc:***@db.example/x?key=[REDACTED]&page=2');
    expect(first.err.type).toBe('TypeError');
    expect(alone.msg).toBe(first.err.message);
    expect(alone.err.message).toBe(first.err.message);
    expect(wrapped.err.message).toContain('wrapped');
    expect(error.message).toContain('sec-1');
  });

  it('masks URLs inside log messages, error text fields and URL objects', () => {
    const { stream, lines } = capture();
    const logger = createLogger({ LOG_LEVEL: 'info' }, 'test', stream);
    logger.info('posting to https://hooks.slack.com/services/T0/B0/sec-4abcdefgh');
    logger.info({ error: 'HTTP 500: see https://bob:sec-5@chat.example/x', reason: 'GET https://g.example/m?token=sec-6', target: new URL('https://u:sec-7@api.example/v1?key=sec-8') }, 'attempt failed');
    expect(lines.join('')).not.toMatch(SECRET);
    const [message, fields] = lines.map((line) => JSON.parse(line));
    expect(message.msg).toBe('posting to https://hooks.slack.com/…efgh');
    expect(fields).toMatchObject({
      error: 'HTTP 500: see https://bob:***@chat.example/x',
      reason: 'GET https://g.example/m?token=[REDACTED]',
      target: 'https://u:***@api.example/v1?key=[REDACTED]',
    });
  });
});
