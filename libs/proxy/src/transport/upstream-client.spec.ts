import { once } from 'node:events';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UpstreamFailure } from '../breaker/provider-breaker';
import { ClientAbortedError, ExchangeAbort, UpstreamClient } from './upstream-client';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A real HTTP upstream whose handler each test sets; records when a request's connection closed early. */
describe('UpstreamClient.sendBuffered', () => {
  let server: Server;
  let url: string;
  let handler: Handler;
  let closedEarly: Promise<void>;
  // undici checks its first-byte deadline on a coarse timer (it fires up to a second late): the
  // deadlines are tested on two clients, each with the other deadline far away.
  const client = new UpstreamClient({ connectTimeoutMs: 1_000, firstByteTimeoutMs: 300, totalTimeoutMs: 10_000 });
  const shortTotal = new UpstreamClient({ connectTimeoutMs: 1_000, firstByteTimeoutMs: 10_000, totalTimeoutMs: 500 });

  beforeAll(async () => {
    server = createServer((req, res) => {
      closedEarly = new Promise((resolve) => res.once('close', () => !res.writableFinished && resolve()));
      handler(req, res);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`;
  });
  afterAll(async () => {
    await Promise.all([client.close(), shortTotal.close()]);
    server.closeAllConnections();
    server.close();
  });

  const post = (abort?: ExchangeAbort, through = client) => through.sendBuffered({ url, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"x":1}' }, abort);

  it('returns the status, the headers and the whole body of an answer sent in several chunks', async () => {
    handler = (req, res) => {
      req.resume();
      res.writeHead(201, { 'content-type': 'application/json', 'x-upstream': 'yes' });
      res.write('{"a":');
      setTimeout(() => res.end('"b"}'), 20);
    };
    const answer = await post();
    expect(answer.status).toBe(201);
    expect(answer.headers).toMatchObject({ 'content-type': 'application/json', 'x-upstream': 'yes' });
    expect(answer.body.toString()).toBe('{"a":"b"}');
  });

  it('ends the exchange when aborted (the client went away): ClientAbortedError, upstream connection closed', async () => {
    handler = (req) => req.resume(); // never answers
    const abort = new ExchangeAbort();
    const answer = post(abort);
    setTimeout(() => abort.abort(new ClientAbortedError()), 50);
    await expect(answer).rejects.toBeInstanceOf(ClientAbortedError);
    await closedEarly;
  });

  it('aborts at once when the exchange was aborted before the request started', async () => {
    handler = (req, res) => {
      req.resume();
      res.end('{}');
    };
    const abort = new ExchangeAbort();
    abort.abort(new ClientAbortedError());
    await expect(post(abort)).rejects.toBeInstanceOf(ClientAbortedError);
  });

  it('fails with an UpstreamFailure past the total deadline while the body drips', async () => {
    handler = (req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => res.write(' '), 100);
      res.once('close', () => clearInterval(timer));
    };
    const failure = post(undefined, shortTotal);
    await expect(failure).rejects.toBeInstanceOf(UpstreamFailure);
    await expect(failure).rejects.toThrow('upstream total deadline passed');
  });

  it('fails with an UpstreamFailure when the connection drops in the middle of the body', async () => {
    handler = (req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"partial":');
      setTimeout(() => res.socket?.destroy(), 20);
    };
    await expect(post()).rejects.toBeInstanceOf(UpstreamFailure);
  });

  it('fails with an UpstreamFailure past the first-byte deadline', async () => {
    handler = (req) => req.resume();
    await expect(post()).rejects.toThrow('upstream first-byte timeout');
  });
});
