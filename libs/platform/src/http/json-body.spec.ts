import Fastify, { FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { megabytes, useJsonBodies } from './json-body';

/** The JSON body parser on a real socket: what a route sees for each kind of body. */
describe('useJsonBodies', () => {
  let app: FastifyInstance;
  let url: string;

  beforeAll(async () => {
    app = Fastify();
    useJsonBodies(app, { rawBodyPrefix: '/raw/', parsedBodyPrefixes: ['/raw/parsed/'] });
    app.setErrorHandler((error: Error & { status?: number; statusCode?: number }, _request, reply) => {
      void reply.status(error.status ?? error.statusCode ?? 500).send({ error: error.name, message: error.message });
    });
    app.post('/echo', async (request) => ({ absent: request.body === undefined, body: request.body ?? null }));
    app.post('/raw/echo', async (request) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request.body as Readable) chunks.push(chunk as Buffer);
      return { stream: request.body instanceof Readable, bytes: Buffer.concat(chunks).length };
    });
    app.post('/raw/parsed/echo', async (request) => ({ stream: request.body instanceof Readable, body: request.body ?? null }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(() => app.close());

  const post = (path: string, body: string | undefined, contentType: string | null = 'application/json') =>
    fetch(`${url}${path}`, { method: 'POST', headers: contentType ? { 'content-type': contentType } : {}, body });

  it('treats an empty body sent as application/json as no body', async () => {
    const res = await post('/echo', '');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ absent: true, body: null });
    const none = await post('/echo', undefined, null);
    expect(await none.json()).toEqual({ absent: true, body: null });
  });

  it('parses JSON and refuses malformed or whitespace-only JSON', async () => {
    expect(await (await post('/echo', '{"a":1}')).json()).toEqual({ absent: false, body: { a: 1 } });
    for (const body of ['{"a":', ' ', 'null x']) {
      const res = await post('/echo', body);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'MalformedJsonError', message: expect.stringContaining('not valid JSON') });
    }
  });

  it('never quotes the malformed body back: a password or key in it stays out of the answer', async () => {
    const cases: [string, string][] = [
      ['{"email":"a@b.example","password":correct-horse-battery}', "Body is not valid JSON: Unexpected token 'c'"],
      ['api_key=sk-live-secret-123456', "Body is not valid JSON: Unexpected token 'a'"],
      ['{"password":"correct-horse-battery",}', 'Body is not valid JSON: Expected double-quoted property name in JSON at position 36'],
    ];
    for (const [body, message] of cases) {
      const res = await post('/echo', body);
      expect(res.status).toBe(400);
      const text = await res.text();
      const answer = JSON.parse(text) as { error: string; message: string };
      expect(answer.error).toBe('MalformedJsonError');
      // Node 22 and later add `(line 1 column N)` to the position.
      expect(answer.message.startsWith(message)).toBe(true);
      expect(text).not.toMatch(/correct-hor|sk-live|secret/);
    }
  });

  it('still hands the raw-body routes their (empty) stream', async () => {
    expect(await (await post('/raw/echo', '')).json()).toEqual({ stream: true, bytes: 0 });
    expect(await (await post('/raw/echo', '{"x":1}')).json()).toEqual({ stream: true, bytes: 7 });
  });

  it('parses JSON under a parsed prefix inside the raw one (the gateway admin’s /v1/admin/ on the proxy’s port)', async () => {
    expect(await (await post('/raw/parsed/echo', '{"x":1}')).json()).toEqual({ stream: false, body: { x: 1 } });
    const malformed = await post('/raw/parsed/echo', '{"x":');
    expect({ status: malformed.status, error: ((await malformed.json()) as { error: string }).error }).toEqual({ status: 400, error: 'MalformedJsonError' });
    expect((await post('/raw/parsed/echo', 'x=1', 'text/plain')).status).toBe(415);
  });
});

describe('megabytes', () => {
  it('shows a size in MB with at most two decimals, and a small one with two significant digits instead of 0', () => {
    expect(megabytes(1048576)).toBe('1');
    expect(megabytes(524288)).toBe('0.5');
    expect(megabytes(209715200)).toBe('200');
    expect(megabytes(2000)).toBe('0.0019');
    expect(megabytes(1)).toBe('9.5e-7');
  });
});
