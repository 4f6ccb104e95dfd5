import { pbkdf2 } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { readFile } from 'node:fs/promises';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo, createServer as createNetServer, Socket } from 'node:net';
import { FakeNameServer, startFakeNameServer } from '@svc/test-redis';
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

  it('keeps the credential parts of the URL out of the error when the receiver echoes its request', async () => {
    handler = (req, res) => res.writeHead(500).end(`no such hook: ${req.url ?? ''} (${decodeURIComponent(req.url ?? '')})`);
    // A team-chat URL: its path is the secret whatever the host, and it may be cut by the 200-character snippet.
    const chat = `${base}/services/T000/B000/${'chatsecret'.repeat(3)}`;
    const outcome = await poster().post(chat, '{}', {}, { secretPath: true });
    expect(outcome).toMatchObject({ statusCode: 500, error: 'HTTP 500: no such hook: [REDACTED] ([REDACTED])' });
    // A webhook: only its credential query values (and user info) are secret; the path stays readable.
    const hook = await poster().post(`${base}/hook?token=tok-1234567890&x=1`, '{}', {});
    expect(hook.error).toBe('HTTP 500: no such hook: /hook?token=[REDACTED]&x=1 (/hook?token=[REDACTED]&x=1)');
    const cut = await poster().post(`${base}/${'p'.repeat(170)}/cut-secret-abcdefghijklmnop`, '{}', {}, { secretPath: true });
    expect(cut.error).not.toMatch(/cut-secret|abcdefgh/);
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

  describe('host lookups (a name server of our own, on a UDP port of 127.0.0.1)', () => {
    let dns: FakeNameServer;
    beforeAll(async () => {
      dns = await startFakeNameServer('silent');
    });
    afterAll(() => dns.close());

    it('counts resolving the host in the deadline: a name server that never answers times the attempt out', async () => {
      const outcome = await poster({ timeoutMs: 200, dnsServers: [dns.address] }).post('https://never.hooks.test/hook', '{}', {});
      expect(outcome).toMatchObject({ statusCode: null, error: 'timed out after 200 ms', blocked: false });
      expect(outcome.latencyMs).toBeGreaterThanOrEqual(190);
      expect(outcome.latencyMs).toBeLessThan(1_000);
      expect(dns.queries).toEqual(expect.arrayContaining([{ name: 'never.hooks.test', type: 'A' }, { name: 'never.hooks.test', type: 'AAAA' }]));
    });

    it('keeps the other lookups of the process and thread-pool work prompt while many webhook lookups hang', async () => {
      // getaddrinfo runs on libuv's pool, at most two at a time (half of its four threads), and holds
      // its thread until the system resolver gives up, past any deadline of ours: a few hanging names
      // and every other lookup of the process (Redis, upstreams, the gateway's in `npm start`) queues
      // behind them for tens of seconds, with half the pool gone for file reads and crypto.
      const hanging = poster({ timeoutMs: 3_000, dnsServers: [dns.address] });
      const attempts = Array.from({ length: 8 }, (_, i) => hanging.post(`https://stall-${i}.hooks.test/hook`, '{}', {}));
      let settled = 0;
      for (const attempt of attempts) void attempt.then(() => (settled += 1));
      await new Promise((resolve) => setTimeout(resolve, 200));
      const started = performance.now();
      const probes = Promise.all([
        lookup('localhost'), // the hosts file: instant unless queued behind hanging lookups
        new Promise<Buffer>((resolve, reject) => pbkdf2('secret', 'salt', 1, 32, 'sha256', (error, key) => (error ? reject(error) : resolve(key)))),
        readFile(__filename),
      ]).then(() => performance.now() - started);
      let giveUp: NodeJS.Timeout | undefined;
      const probeMs = await Promise.race([probes, new Promise<number>((resolve) => (giveUp = setTimeout(() => resolve(Infinity), 5_000)))]);
      clearTimeout(giveUp);
      expect(probeMs).toBeLessThan(1_500); // queued behind the hanging lookups it would take the 5 s give-up (getaddrinfo holds a thread 10 s)
      expect(settled).toBe(0); // the webhook lookups were still hanging
      expect(new Set(dns.queries.filter((q) => q.name.startsWith('stall-')).map((q) => q.name)).size).toBe(8);
      const outcomes = await Promise.all(attempts);
      expect(outcomes.every((outcome) => outcome.error === 'timed out after 3000 ms')).toBe(true);
    });

    it('delivers to a name that answers slowly within the deadline, and checks every address it has', async () => {
      handler = (_req, res) => res.end('ok');
      const port = new URL(base).port;
      dns.answer('slow.hooks.test', { addresses: ['127.0.0.1'], delayMs: 150 });
      const outcome = await poster({ timeoutMs: 2_000, dnsServers: [dns.address] }).post(`http://slow.hooks.test:${port}/hook`, '{}', {});
      expect(outcome).toMatchObject({ statusCode: 200, error: null });
      expect(outcome.latencyMs).toBeGreaterThanOrEqual(150);
      // Without OUTBOUND_ALLOW_PRIVATE_NETWORKS a private AAAA beside a public A refuses the host.
      dns.answer('mixed.hooks.test', { addresses: ['93.184.216.34', 'fd00::5'] });
      const mixed = await poster({ allowPrivate: false, dnsServers: [dns.address] }).post('https://mixed.hooks.test/hook', '{}', {});
      expect(mixed).toMatchObject({ statusCode: null, blocked: true, error: expect.stringContaining('mixed.hooks.test (fd00::5)') });
    });

    it('still reaches localhost where private addresses are allowed, without asking the name servers', async () => {
      handler = (_req, res) => res.end('ok');
      const before = dns.queries.length;
      const outcome = await poster({ dnsServers: [dns.address] }).post(`${base.replace('127.0.0.1', 'localhost')}/hook`, '{}', {});
      expect(outcome).toMatchObject({ statusCode: 200, error: null });
      expect(dns.queries.length).toBe(before);
    });
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
