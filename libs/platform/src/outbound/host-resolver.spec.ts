import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeNameServer, startFakeNameServer } from '@svc/test-redis';
import { request } from 'undici';
import { createBoundedResolver, HostLookupTimeoutError } from './host-resolver';
import { OutboundBlockedError } from './outbound-address';
import { createOutboundAgent } from './outbound-agent';
import { checkOutboundUrl } from './outbound-url';

const settle = (promise: Promise<unknown>) => promise.then(() => null, (error: unknown) => error);

describe('createBoundedResolver (c-ares against a name server of our own)', () => {
  let dns: FakeNameServer;
  beforeAll(async () => {
    dns = await startFakeNameServer('nxdomain');
  });
  afterAll(() => dns.close());
  const resolver = (systemFallback = false) => createBoundedResolver({ servers: [dns.address], systemFallback });

  it('asks for A and AAAA and answers every address of both families', async () => {
    dns.answer('both.hooks.test', { addresses: ['93.184.216.34', '2606:2800:220:1::1'] });
    await expect(resolver()('both.hooks.test', 1_000)).resolves.toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1::1', family: 6 },
    ]);
    expect(dns.queries.filter((q) => q.name === 'both.hooks.test').map((q) => q.type).sort()).toEqual(['A', 'AAAA']);
  });

  it('gives up at the deadline and cancels its queries: no retry reaches the name server afterwards', async () => {
    dns.answer('silent.hooks.test', 'silent');
    const started = performance.now();
    const error = await settle(resolver()('silent.hooks.test', 300));
    const elapsed = performance.now() - started;
    expect(error).toBeInstanceOf(HostLookupTimeoutError);
    expect((error as Error).message).toBe('The host silent.hooks.test did not resolve within 300 ms');
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(800);
    // Queries sent before the cancel may still be in the socket's buffer on a busy machine (the
    // deadline's timer can fire after a retry of c-ares' own): they are counted after a short wait.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const asked = dns.queries.filter((q) => q.name === 'silent.hooks.test').length;
    expect(asked).toBeGreaterThanOrEqual(2);
    // c-ares would send the next tries (after 75, 150, 300 ms more) had the lookup not been cancelled.
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(dns.queries.filter((q) => q.name === 'silent.hooks.test').length).toBe(asked);
  });

  it('waits for a slow name server within the deadline', async () => {
    dns.answer('slow.hooks.test', { addresses: ['93.184.216.34'], delayMs: 200 });
    await expect(resolver()('slow.hooks.test', 1_000)).resolves.toEqual([{ address: '93.184.216.34', family: 4 }]);
  });

  it('answers localhost and *.localhost as loopback without asking (c-ares does not read the hosts file)', async () => {
    const before = dns.queries.length;
    for (const name of ['localhost', 'LOCALHOST.', 'hooks.localhost']) {
      await expect(resolver()(name, 1_000)).resolves.toEqual([
        { address: '127.0.0.1', family: 4 },
        { address: '::1', family: 6 },
      ]);
    }
    expect(dns.queries.length).toBe(before);
  });

  it('looks a name the name servers do not know up with getaddrinfo only with systemFallback', async () => {
    // `127.1` is a name to DNS and an address to getaddrinfo (inet_aton), which needs no network.
    await expect(resolver(false)('127.1', 1_000)).resolves.toEqual([]);
    await expect(resolver(true)('127.1', 1_000)).resolves.toEqual([{ address: '127.0.0.1', family: 4 }]);
  });

  it('bounds checkOutboundUrl: lookup_timeout at the deadline, unresolvable for an unknown name', async () => {
    const strict = { allowPrivate: false, allowHttp: false, resolve: resolver() };
    const timedOut = await settle(checkOutboundUrl('https://silent.hooks.test/x', { ...strict, timeoutMs: 200 }));
    expect(timedOut).toBeInstanceOf(OutboundBlockedError);
    expect(timedOut).toMatchObject({ reason: 'lookup_timeout', message: 'The host silent.hooks.test did not resolve within 200 ms' });
    expect(await settle(checkOutboundUrl('https://unknown.hooks.test/x', { ...strict, timeoutMs: 200 }))).toMatchObject({ reason: 'unresolvable' });
    // A resolver that ignores the deadline is held to it all the same.
    const deaf = async () => new Promise<never>(() => undefined);
    expect(await settle(checkOutboundUrl('https://deaf.hooks.test/x', { ...strict, resolve: deaf, timeoutMs: 100 }))).toMatchObject({ reason: 'lookup_timeout' });
  });

  describe('createOutboundAgent with it', () => {
    let server: Server;
    let port: number;
    beforeAll(async () => {
      server = createServer((_req, res) => res.end('ok'));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('resolves at connect time through it and checks every address again (DNS rebinding)', async () => {
      dns.answer('rebound.hooks.test', { addresses: ['127.0.0.1'] });
      const strict = createOutboundAgent({ allowPrivate: false, connectTimeoutMs: 1_000, resolve: resolver() });
      const open = createOutboundAgent({ allowPrivate: true, connectTimeoutMs: 1_000, resolve: resolver() });
      try {
        const refused = await settle(request(`http://rebound.hooks.test:${port}/`, { dispatcher: strict }));
        expect(refused).toBeInstanceOf(OutboundBlockedError);
        expect(refused).toMatchObject({ range: 'loopback', message: expect.stringContaining('rebound.hooks.test (127.0.0.1)') });
        const res = await request(`http://rebound.hooks.test:${port}/`, { dispatcher: open });
        expect(await res.body.text()).toBe('ok');
        expect(dns.queries.filter((q) => q.name === 'rebound.hooks.test').length).toBeGreaterThanOrEqual(4);
      } finally {
        await Promise.all([strict.close(), open.close()]);
      }
    });
  });
});
