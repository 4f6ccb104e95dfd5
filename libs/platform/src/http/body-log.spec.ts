import { Body, Controller, Module, Post, Req } from '@nestjs/common';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyRequest } from 'fastify';
import { Readable, Writable } from 'node:stream';
import { createLogger } from '../logging/logger';
import { bodyLoggingEnabled, tapRequestBody } from './body-log';
import { createHttpApp } from './http-app';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- log lines are asserted field by field
type Json = Record<string, any>;

@Controller()
class BodiesController {
  /** Like the proxy: the body arrives unread and the route reads the stream itself. */
  @Post('raw/echo')
  async raw(@Req() request: FastifyRequest) {
    let bytes = 0;
    for await (const chunk of request.body as Readable) bytes += (chunk as Buffer).length;
    return { bytes };
  }
  @Post('json/login')
  login(@Body() body: Record<string, unknown>) {
    return { email: body.email };
  }
}

@Module({ controllers: [BodiesController] })
class BodiesModule {}

async function boot(level: 'debug' | 'info', logBodies: boolean, mask?: (text: string) => string) {
  const lines: Json[] = [];
  const logger = createLogger(
    { LOG_LEVEL: level },
    'spec',
    new Writable({
      write(chunk, _e, done) {
        lines.push(JSON.parse(String(chunk)) as Json);
        done();
      },
    }),
  );
  const app: NestFastifyApplication = await createHttpApp(BodiesModule, { name: 'spec', surface: 'gateway', logger, rawBodyPrefix: '/raw/', logBodies, maskLoggedText: mask });
  // Like the proxy's hot path: an onRequest hook takes `/hot/` requests over before body parsing and
  // reads the raw request itself, through the tap when bodies are logged.
  app.getHttpAdapter().getInstance().addHook('onRequest', (request, reply, done) => {
    if (!request.url.startsWith('/hot/')) return done();
    reply.hijack();
    const body = bodyLoggingEnabled({ LOG_BODIES: logBodies }, logger) ? tapRequestBody(request.raw, request, logger, mask) : request.raw;
    void (async () => {
      let bytes = 0;
      for await (const chunk of body) bytes += (chunk as Buffer).length;
      reply.raw.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ bytes }));
    })();
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
  const bodyLines = () => lines.filter((line) => line.msg === 'request body');
  return { app, url, lines, bodyLines };
}

const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('LOG_BODIES', () => {
  let env: Awaited<ReturnType<typeof boot>>;
  beforeAll(async () => {
    env = await boot('debug', true);
  });
  afterAll(() => env.app.close());

  it('logs a parsed JSON body at debug with its credentials redacted', async () => {
    const res = await post(`${env.url}/json/login`, { email: 'owner@example.com', password: 'hunter2-secret-pw' });
    expect(await res.json()).toEqual({ email: 'owner@example.com' });
    const line = env.bodyLines().find((l) => l.url === '/json/login');
    expect(line).toMatchObject({ level: 20, method: 'POST', body: { email: 'owner@example.com', password: '[REDACTED]' } });
    expect(JSON.stringify(env.lines)).not.toContain('hunter2-secret-pw');
  });

  it('masks URLs (team-chat webhooks on any host, user info) and what nests too deep in a logged body', async () => {
    const deep = { a: { b: { c: { d: { e: { f: { g: { h: { i: { api_key: 'sk-deep-secret-4' } } } } } } } } } };
    const body = {
      kind: 'slack',
      url: 'https://hooks.slack.com/services/T000/B000/CHATSECRETxyz123',
      fallback_url: 'https://8.8.8.8/services/T0/B0/CHATSECRET2part',
      proxy: 'https://user:PASSWORD-secret-5@proxy.example:8080',
      metadata: deep,
    };
    expect((await post(`${env.url}/json/login`, body)).status).toBe(201);
    expect((await post(`${env.url}/hot/chat`, body)).status).toBe(200);
    for (const url of ['/json/login', '/hot/chat']) {
      const line = env.bodyLines().find((l) => l.url === url && l.body?.kind === 'slack');
      expect(line?.body).toMatchObject({
        url: 'https://hooks.slack.com/…z123',
        fallback_url: 'https://8.8.8.8/…part',
        proxy: 'https://user:***@proxy.example:8080',
        metadata: { a: { b: { c: { d: { e: { f: { g: '[TRUNCATED]' } } } } } } },
      });
    }
    expect(JSON.stringify(env.lines)).not.toMatch(/CHATSECRET|PASSWORD-secret|sk-deep-secret/);
  });

  it('logs a body the route reads itself once it is read, and the route still gets every byte', async () => {
    const content = 'x'.repeat(200_000);
    const body = { model: 'gpt-4o', api_key: 'sk-body-secret-1', messages: [{ role: 'user', content }] };
    const res = await post(`${env.url}/raw/echo?key=sk-query-secret-2&stream=false`, body);
    expect(await res.json()).toEqual({ bytes: Buffer.byteLength(JSON.stringify(body)) });
    const line = env.bodyLines().find((l) => String(l.url).startsWith('/raw/echo'));
    expect(line).toMatchObject({ url: '/raw/echo?key=[REDACTED]&stream=false', body: { model: 'gpt-4o', api_key: '[REDACTED]' } });
    expect(line?.body.messages[0].content).toHaveLength(200_000);
    expect(JSON.stringify(env.lines)).not.toMatch(/sk-(body|query)-secret/);
  });

  it('logs a body read by an onRequest hot path through tapRequestBody', async () => {
    const body = { model: 'm', messages: [{ role: 'user', content: 'hot path prompt' }], plaintext_key: 'sk-hot-secret-3' };
    const res = await post(`${env.url}/hot/echo`, body);
    expect(await res.json()).toEqual({ bytes: Buffer.byteLength(JSON.stringify(body)) });
    const line = env.bodyLines().find((l) => l.url === '/hot/echo');
    expect(line).toMatchObject({ method: 'POST', body: { model: 'm', plaintext_key: '[REDACTED]', messages: [{ content: 'hot path prompt' }] } });
    expect(JSON.stringify(env.lines)).not.toContain('sk-hot-secret');
  });

  it('logs only the size of a body too large to log', async () => {
    const res = await post(`${env.url}/raw/echo`, { content: 'y'.repeat(300 * 1024) });
    const { bytes } = (await res.json()) as Json;
    expect(bytes).toBeGreaterThan(300 * 1024);
    expect(env.bodyLines().find((l) => l.body_bytes === bytes)).toMatchObject({ body_omitted: expect.any(String) });
  });
});

describe('LOG_BODIES with a text mask (the services pass the PII scanner\'s maskPii)', () => {
  // A stand-in for maskPii: `person-<digits>` is the personal data.
  const mask = (text: string) => text.replace(/person-\d+/g, '[MASKED]');
  let env: Awaited<ReturnType<typeof boot>>;
  beforeAll(async () => {
    env = await boot('debug', true, mask);
  });
  afterAll(() => env.app.close());

  it('masks every string value of a body, parsed or read by the route or a hot path, and still redacts credentials', async () => {
    const body = {
      name: 'person-1',
      password: 'person-2-password',
      messages: [{ role: 'user', content: 'write to person-3 about the invoice' }, { role: 'user', content: ['person-4', 7] }],
      link: 'https://example.com/person-5',
    };
    expect((await post(`${env.url}/json/login`, body)).status).toBe(201);
    expect((await post(`${env.url}/raw/echo`, body)).status).toBe(201);
    expect((await post(`${env.url}/hot/echo`, body)).status).toBe(200);
    for (const url of ['/json/login', '/raw/echo', '/hot/echo']) {
      expect(env.bodyLines().find((l) => l.url === url)?.body).toEqual({
        name: '[MASKED]',
        password: '[REDACTED]',
        messages: [{ role: 'user', content: 'write to [MASKED] about the invoice' }, { role: 'user', content: ['[MASKED]', 7] }],
        link: expect.stringMatching(/^https:\/\/example\.com\/…/),
      });
    }
    expect(JSON.stringify(env.lines)).not.toMatch(/person-\d/);
  });

  it('masks a body that is a JSON string', async () => {
    expect((await post(`${env.url}/hot/echo`, 'call person-6')).status).toBe(200);
    expect(env.bodyLines().find((l) => l.url === '/hot/echo' && typeof l.body === 'string')?.body).toBe('call [MASKED]');
  });
});

describe('without LOG_BODIES, or above debug level', () => {
  it.each([
    ['LOG_BODIES=false at debug', 'debug', false],
    ['LOG_BODIES=true at info', 'info', true],
  ] as const)('%s logs no bodies', async (_what, level, logBodies) => {
    const env = await boot(level, logBodies);
    try {
      expect((await post(`${env.url}/json/login`, { email: 'a@b.c', password: 'pw-123456789' })).status).toBe(201);
      expect((await post(`${env.url}/raw/echo`, { model: 'm' })).status).toBe(201);
      expect((await post(`${env.url}/hot/echo`, { model: 'm' })).status).toBe(200);
      expect(env.bodyLines()).toEqual([]);
    } finally {
      await env.app.close();
    }
  });
});
