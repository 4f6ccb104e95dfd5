import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo, createServer as createNetServer, Socket } from 'node:net';
import { OutboundPoster } from './outbound-poster';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

describe('OutboundPoster', () => {
  let server: Server;
  let base: string;
  let handler: Handler = (_req, res) => res.end('ok');
  const received: { path: string; body: string; headers: IncomingMessage['headers'] }[] = [];
  const posters: OutboundPoster[] = [];
  const poster = (options: Partial<ConstructorParameters<typeof OutboundPoster>[0]> = {}) => {
    const created = new OutboundPoster({ allowPrivate: true, allowHttp: true, timeoutMs: 2_000, ...options });
    posters.push(created);
    return created;
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        received.push({ path: req.url ?? '', body, headers: req.headers });
        handler(req, res, body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    received.length = 0;
  });
  afterAll(async () => {
    await Promise.all(posters.map((p) => p.close()));
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('POSTs the body with the given headers and reports a 2xx with its latency', async () => {
    handler = (_req, res) => res.writeHead(204).end();
    const outcome = await poster().post(`${base}/hook`, '{"a":1}', { 'Content-Type': 'application/json', 'X-Test': 'yes' });
    expect(outcome).toMatchObject({ statusCode: 204, error: null, blocked: false });
    expect(outcome.latencyMs).toBeGreaterThanOrEqual(0);
    expect(received).toEqual([
      expect.objectContaining({ path: '/hook', body: '{"a":1}', headers: expect.objectContaining({ 'x-test': 'yes', 'content-type': 'application/json', 'user-agent': expect.stringMatching(/^svc-webhook-dispatcher\//) }) }),
    ]);
  });

  it('reports a non-2xx with the start of the body', async () => {
    handler = (_req, res) => res.writeHead(503).end(`overloaded ${'x'.repeat(1_000)}`);
    const outcome = await poster().post(`${base}/hook`, '{}', {});
    expect(outcome.statusCode).toBe(503);
    expect(outcome.error).toMatch(/^HTTP 503: overloaded x+…$/);
    expect((outcome.error as string).length).toBeLessThan(220);
  });

  it('never follows a redirect: the 3xx is the outcome and the Location is not called', async () => {
    handler = (req, res) => (req.url === '/moved' ? res.writeHead(302, { Location: `${base}/target` }).end() : res.end('target'));
    const outcome = await poster().post(`${base}/moved`, '{}', {});
    expect(outcome).toMatchObject({ statusCode: 302, error: 'HTTP 302 (redirects are not followed)', blocked: false });
    expect(received.map((r) => r.path)).toEqual(['/moved']);
  });

  it('gives up after the timeout', async () => {
    handler = (_req, res) => {
      const late = setTimeout(() => res.end('late'), 1_500);
      res.on('close', () => clearTimeout(late)); // the client gave up: no timer left behind
    };
    const outcome = await poster({ timeoutMs: 200 }).post(`${base}/slow`, '{}', {});
    expect(outcome).toMatchObject({ statusCode: null, error: 'timed out after 200 ms', blocked: false });
    expect(outcome.latencyMs).toBeGreaterThanOrEqual(190);
    expect(outcome.latencyMs).toBeLessThan(1_000);
  });

  it('stops reading a body the receiver trickles at the deadline: a 2xx still succeeds, a failure keeps what arrived', async () => {
    handler = (req, res) => {
      res.writeHead(req.url === '/trickle-ok' ? 200 : 503, { 'Content-Type': 'text/plain' });
      res.flushHeaders();
      const drip = setInterval(() => res.write('.'), 40);
      res.on('close', () => clearInterval(drip));
    };
    for (const [path, expected] of [
      ['/trickle-ok', { statusCode: 200, error: null, blocked: false }],
      ['/trickle-failed', { statusCode: 503, error: expect.stringMatching(/^HTTP 503: \.+$/), blocked: false }],
    ] as const) {
      const started = performance.now();
      const outcome = await poster({ timeoutMs: 300 }).post(`${base}${path}`, '{}', {});
      expect({ path, outcome }).toEqual({ path, outcome: expect.objectContaining(expected) });
      // Without the cut the attempt would last as long as the receiver keeps dripping.
      expect(performance.now() - started).toBeLessThan(1_000);
    }
  });

  it('counts resolving the host in the deadline: a name server that never answers times the attempt out', async () => {
    const silentDns = () => new Promise<never>(() => undefined);
    const outcome = await poster({ timeoutMs: 200, resolve: silentDns }).post('https://hooks.example.com/hook', '{}', {});
    expect(outcome).toMatchObject({ statusCode: null, error: 'timed out after 200 ms', blocked: false });
    expect(outcome.latencyMs).toBeGreaterThanOrEqual(190);
    expect(outcome.latencyMs).toBeLessThan(1_000);
  });

  it('lets a slow connection (a TLS handshake that never ends) use the whole timeout, past 5 s', async () => {
    // Accepts TCP, never answers the TLS ClientHello.
    const sockets: Socket[] = [];
    const silent = createNetServer((socket) => void sockets.push(socket.on('error', () => undefined)));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const port = (silent.address() as AddressInfo).port;
      const outcome = await poster({ timeoutMs: 5_600 }).post(`https://127.0.0.1:${port}/hook`, '{}', {});
      // A connect deadline of its own (5 s before) would have cut it short with another error.
      expect(outcome).toMatchObject({ statusCode: null, error: 'timed out after 5600 ms', blocked: false });
      expect(outcome.latencyMs).toBeGreaterThanOrEqual(5_550);
      expect(outcome.latencyMs).toBeLessThan(6_500);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  }, 15_000);

  it('refuses private addresses and http without the development switches, before connecting', async () => {
    handler = (_req, res) => res.end('ok');
    const strict = poster({ allowPrivate: false, allowHttp: true });
    for (const url of [`${base}/hook`, `${base.replace('127.0.0.1', 'localhost')}/hook`, 'http://169.254.169.254/latest', 'http://10.0.0.1/x']) {
      const outcome = await strict.post(url, '{}', {});
      expect(outcome).toMatchObject({ statusCode: null, blocked: true, error: expect.stringMatching(/^refused by outbound safety: .* not allowed/) });
    }
    const noHttp = await poster({ allowPrivate: true, allowHttp: false }).post(`${base}/hook`, '{}', {});
    expect(noHttp).toMatchObject({ blocked: true, error: 'refused by outbound safety: The URL must use https://' });
    expect(received).toEqual([]);
  });

  it('reports a connection error as a retryable failure', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const outcome = await poster().post(`http://127.0.0.1:${port}/`, '{}', {});
    expect(outcome).toMatchObject({ statusCode: null, blocked: false, error: expect.stringContaining('ECONNREFUSED') });
  });
});
