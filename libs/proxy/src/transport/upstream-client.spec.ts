import { once } from 'node:events';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo, createServer as createNetServer, Socket } from 'node:net';
import { UpstreamFailure } from '../breaker/provider-breaker';
import { ClientAbortedError, ExchangeAbort, OpenedUpstream, UpstreamClient } from './upstream-client';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A real HTTP upstream whose handler each test sets; records when a request's connection closed early. */
describe('UpstreamClient (sendBuffered: whole answers; open: streamed ones)', () => {
  let server: Server;
  let url: string;
  let handler: Handler;
  let closedEarly: Promise<void>;
  let onRequest: (() => void) | undefined;
  /** Resolves when the server has the next request (an abort before that would leave `closedEarly` the last test's). */
  const nextRequest = () => new Promise<void>((resolve) => (onRequest = resolve));
  // The deadlines are tested on two clients, each with the other deadline far away (a 300 ms
  // first-byte deadline is kept by SubSecondDeadlines, not undici's coarse timers).
  const client = new UpstreamClient({ connectTimeoutMs: 1_000, firstByteTimeoutMs: 300, totalTimeoutMs: 10_000 });
  const shortTotal = new UpstreamClient({ connectTimeoutMs: 1_000, firstByteTimeoutMs: 10_000, totalTimeoutMs: 500 });

  beforeAll(async () => {
    server = createServer((req, res) => {
      closedEarly = new Promise((resolve) => res.once('close', () => !res.writableFinished && resolve()));
      onRequest?.();
      onRequest = undefined;
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

  it('sendBuffered: returns the status, the headers and the whole body of an answer sent in several chunks', async () => {
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

  it('sendBuffered: ends the exchange when aborted (the client went away): ClientAbortedError, upstream connection closed', async () => {
    handler = (req) => req.resume(); // never answers
    const abort = new ExchangeAbort();
    const reached = nextRequest();
    const answer = post(abort);
    await reached;
    abort.abort(new ClientAbortedError());
    await expect(answer).rejects.toBeInstanceOf(ClientAbortedError);
    await closedEarly;
    // The provider had the request (the charge of a lost exchange, chargeOf), and no answer.
    expect([abort.dispatched, abort.status]).toEqual([true, 0]);
  });

  it('sendBuffered: aborts at once when the exchange was aborted before the request started', async () => {
    handler = (req, res) => {
      req.resume();
      res.end('{}');
    };
    const abort = new ExchangeAbort();
    abort.abort(new ClientAbortedError());
    await expect(post(abort)).rejects.toBeInstanceOf(ClientAbortedError);
    // Started only to be aborted: nothing of it was written.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(abort.dispatched).toBe(false);
  });

  it('sendBuffered: fails with an UpstreamFailure past the total deadline while the body drips', async () => {
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

  it('sendBuffered: fails with an UpstreamFailure when the connection drops in the middle of the body', async () => {
    handler = (req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"partial":');
      setTimeout(() => res.socket?.destroy(), 20);
    };
    const abort = new ExchangeAbort();
    await expect(post(abort)).rejects.toBeInstanceOf(UpstreamFailure);
    expect([abort.dispatched, abort.status]).toEqual([true, 200]);
  });

  it('sendBuffered: fails with an UpstreamFailure past the first-byte deadline', async () => {
    handler = (req) => req.resume();
    await expect(post()).rejects.toThrow('upstream first-byte timeout');
  });
  const open = (abort?: ExchangeAbort, through = client) => through.open({ url, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"x":1}' }, abort);

  /** What a sink given to `pipe` received: the chunks as text, then how the body ended. */
  function collect(response: OpenedUpstream, onData?: (chunk: Buffer, chunks: string[]) => void) {
    const chunks: string[] = [];
    const done = new Promise<{ chunks: string[]; error?: Error }>((resolve) => {
      response.pipe({
        data: (chunk) => {
          chunks.push(chunk.toString());
          onData?.(chunk, chunks);
        },
        end: () => resolve({ chunks }),
        error: (error) => resolve({ chunks, error }),
      });
    });
    return { chunks, done };
  }

  it('open: resolves at the headers, then hands the body to the sink chunk by chunk, the ones read before pipe first', async () => {
    let next!: () => void;
    handler = (req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream', 'x-upstream': 'yes' });
      res.write('data: 1\n\n');
      next = () => {
        res.write('data: 2\n\n');
        setTimeout(() => res.end('data: [DONE]\n\n'), 20);
      };
    };
    const response = await open();
    expect(response.status).toBe(200);
    expect(response.headers).toMatchObject({ 'content-type': 'text/event-stream', 'x-upstream': 'yes' });
    // The first chunk arrives before anyone pipes: it waits, and comes first.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const { done } = collect(response);
    next();
    const result = await done;
    expect(result.error).toBeUndefined();
    expect(result.chunks.join('')).toBe('data: 1\n\ndata: 2\n\ndata: [DONE]\n\n');
    expect(result.chunks[0]).toBe('data: 1\n\n');
  });

  it('open: a paused answer is not read until resumed, then arrives whole', async () => {
    handler = (req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let sent = 0;
      const timer = setInterval(() => {
        res.write(`data: ${'x'.repeat(1000)} ${sent}\n\n`);
        if (++sent === 10) {
          clearInterval(timer);
          res.end();
        }
      }, 10);
    };
    const response = await open();
    const { chunks, done } = collect(response, (_chunk, received) => {
      if (received.length === 1) response.pause();
    });
    // The provider writes everything within ~100 ms; paused, none of it is read.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const whilePaused = chunks.join('').split('\n\n').length - 1;
    expect(whilePaused).toBeLessThanOrEqual(2);
    response.resume();
    const result = await done;
    expect(result.error).toBeUndefined();
    expect(result.chunks.join('').split('\n\n').filter(Boolean)).toHaveLength(10);
  });

  it('open: the client going away after the headers ends the body with ClientAbortedError and closes the upstream connection', async () => {
    handler = (req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n'); // and nothing more
    };
    const abort = new ExchangeAbort();
    const response = await open(abort);
    const { done } = collect(response);
    setTimeout(() => abort.abort(new ClientAbortedError()), 30);
    const result = await done;
    expect(result.error).toBeInstanceOf(ClientAbortedError);
    expect(result.chunks).toEqual(['data: 1\n\n']);
    await closedEarly;
  });

  it('open: rejects with ClientAbortedError when the client went away before the headers', async () => {
    handler = (req) => req.resume(); // never answers
    const abort = new ExchangeAbort();
    const reached = nextRequest();
    const response = open(abort);
    await reached;
    abort.abort(new ClientAbortedError());
    await expect(response).rejects.toBeInstanceOf(ClientAbortedError);
    await closedEarly;
  });

  it('open: past the total deadline mid-body, or when the connection drops, the sink gets an UpstreamFailure', async () => {
    handler = (req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const timer = setInterval(() => res.write('data: tick\n\n'), 100);
      res.once('close', () => clearInterval(timer));
    };
    const slow = collect(await open(undefined, shortTotal));
    const late = await slow.done;
    expect(late.error).toBeInstanceOf(UpstreamFailure);
    expect(late.error?.message).toBe('upstream total deadline passed');
    expect(late.chunks.length).toBeGreaterThan(0);

    handler = (req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n');
      setTimeout(() => res.socket?.destroy(), 20);
    };
    const dropped = await collect(await open()).done;
    expect(dropped.error).toBeInstanceOf(UpstreamFailure);
  });

  it('open: the exchange can be ended from the sink (a chunk that cannot be relayed), with that reason', async () => {
    handler = (req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const timer = setInterval(() => res.write('data: tick\n\n'), 10);
      res.once('close', () => clearInterval(timer));
    };
    const response = await open();
    const reason = new Error('cannot translate this chunk');
    const result = await collect(response, () => response.abort(reason)).done;
    expect(result.error).toBe(reason);
    expect(result.chunks).toHaveLength(1);
    await closedEarly;
  });

  describe('while the connection is being made (a TLS handshake that never ends)', () => {
    let silent: ReturnType<typeof createNetServer>;
    const sockets: Socket[] = [];
    let origin: string;
    // Connect and first-byte deadlines far away: only the abort, or the total deadline, can end these.
    const slowConnect = new UpstreamClient({ connectTimeoutMs: 20_000, firstByteTimeoutMs: 20_000, totalTimeoutMs: 20_000 });
    const shortTotalSlowConnect = new UpstreamClient({ connectTimeoutMs: 20_000, firstByteTimeoutMs: 20_000, totalTimeoutMs: 300 });

    beforeAll(async () => {
      silent = createNetServer((socket) => void sockets.push(socket.on('error', () => undefined)));
      silent.listen(0, '127.0.0.1');
      await once(silent, 'listening');
      origin = `https://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      // Ends the handshakes still waiting, so the pools can close.
      for (const socket of sockets) socket.destroy();
      await Promise.all([slowConnect.close(), shortTotalSlowConnect.close()]);
      silent.close();
    });

    const request = () => ({ url: `${origin}/v1/chat/completions`, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    const timed = async (work: Promise<unknown>) => {
      const started = Date.now();
      const error = await work.then(
        () => new Error('expected a rejection'),
        (rejected: unknown) => rejected,
      );
      return { error, ms: Date.now() - started };
    };

    it.each(['sendBuffered', 'open'] as const)('%s: the client going away ends the exchange at once', async (method) => {
      const abort = new ExchangeAbort();
      const exchange = slowConnect[method](request(), abort);
      setTimeout(() => abort.abort(new ClientAbortedError()), 100);
      const { error, ms } = await timed(exchange);
      expect(error).toBeInstanceOf(ClientAbortedError);
      // Before the fix it ended only with the connect deadline (20 s here, the test's timeout before that).
      expect(ms).toBeLessThan(5_000);
      // Nothing reached the provider: the request is not charged (chargeOf).
      expect(abort.dispatched).toBe(false);
    });

    it.each(['sendBuffered', 'open'] as const)('%s: the total deadline ends it with an UpstreamFailure', async (method) => {
      const { error, ms } = await timed(shortTotalSlowConnect[method](request()));
      expect(error).toBeInstanceOf(UpstreamFailure);
      expect((error as Error).message).toBe('upstream total deadline passed');
      expect(ms).toBeLessThan(5_000);
    });
  });
});
