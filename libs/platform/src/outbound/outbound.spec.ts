import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { blockedRange, OutboundBlockedError, parseIpLiteral } from './outbound-address';
import { createOutboundAgent } from './outbound-agent';
import { HostResolver } from './host-resolver';
import { checkOutboundUrl } from './outbound-url';

const strict = { allowPrivate: false, allowHttp: false };
const reasonOf = async (promise: Promise<unknown>) => {
  const error = await promise.then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(OutboundBlockedError);
  return error as OutboundBlockedError;
};

describe('checkOutboundUrl', () => {
  const blocked: [string, string][] = [
    ['https://127.0.0.1/hook', 'loopback'],
    ['https://127.8.9.10/hook', 'loopback'],
    ['https://[::1]/hook', 'loopback'],
    ['https://[::ffff:127.0.0.1]/hook', 'loopback'],
    ['https://[::ffff:7f00:1]/hook', 'loopback'],
    ['https://169.254.169.254/latest/meta-data', 'metadata'],
    ['https://2852039166/latest', 'metadata'],
    ['https://0251.0376.0251.0376/latest', 'metadata'],
    ['https://0xa9fea9fe/latest', 'metadata'],
    ['https://0xA9.0xFE.0xA9.0xFE/latest', 'metadata'],
    ['https://[::ffff:169.254.169.254]/latest', 'metadata'],
    // Other clouds' metadata and host-agent endpoints; Azure's wireserver is a public address.
    ['https://168.63.129.16/machine?comp=goalstate', 'metadata'],
    ['https://2822734096/machine', 'metadata'],
    ['https://[::ffff:168.63.129.16]/machine', 'metadata'],
    ['https://100.100.100.200/latest/meta-data', 'metadata'],
    ['https://192.0.0.192/opc/v2/instance', 'metadata'],
    ['https://[fd00:ec2::254]/latest/meta-data', 'metadata'],
    ['https://[fd00:ec2:0::254]/latest/meta-data', 'metadata'],
    ['https://[fd20:ce::254]/computeMetadata/v1', 'metadata'],
    ['https://169.254.1.1/', 'linkLocal'],
    ['https://10.1.2.3/', 'private'],
    ['https://172.16.0.1/', 'private'],
    ['https://172.31.255.255/', 'private'],
    ['https://192.168.1.1/', 'private'],
    ['https://[::ffff:10.0.0.1]/', 'private'],
    ['https://[::ffff:a9fe:a9fe]/latest', 'metadata'],
    ['https://[0:0:0:0:0:ffff:169.254.169.254]/latest', 'metadata'],
    ['https://[::ffff:169.254.1.1]/', 'linkLocal'],
    ['https://[::ffff:172.16.0.1]/', 'private'],
    ['https://[0:0:0:0:0:ffff:192.168.1.1]/', 'private'],
    ['https://[::ffff:100.64.0.1]/', 'carrierGradeNat'],
    ['https://[::ffff:0.0.0.0]/', 'unspecified'],
    ['https://[::ffff:0:127.0.0.1]/', 'rfc6145'],
    ['https://[64:ff9b::a9fe:a9fe]/', 'rfc6052'],
    ['https://[::127.0.0.1]/', 'ipv4Compatible'],
    ['https://[::169.254.169.254]/', 'ipv4Compatible'],
    ['https://[::10.0.0.1]/', 'ipv4Compatible'],
    ['https://100.64.0.1/', 'carrierGradeNat'],
    ['https://100.127.255.254/', 'carrierGradeNat'],
    ['https://[fc00::1]/', 'uniqueLocal'],
    ['https://[fd12:3456::1]/', 'uniqueLocal'],
    ['https://[fe80::1]/', 'linkLocal'],
    ['https://[febf::1]/', 'linkLocal'],
    ['https://0.0.0.0/', 'unspecified'],
    ['https://[::]/', 'unspecified'],
    ['https://224.0.0.1/', 'multicast'],
    ['https://[ff02::1]/', 'multicast'],
    ['https://255.255.255.255/', 'broadcast'],
  ];

  it.each(blocked)('refuses %s (%s)', async (url, range) => {
    const error = await reasonOf(checkOutboundUrl(url, strict));
    expect(error.reason).toBe('blocked_address');
    expect(error.range).toBe(range);
  });

  it('refuses a host name that resolves to loopback (localhost)', async () => {
    const error = await reasonOf(checkOutboundUrl('https://localhost:8443/hook', strict));
    expect(error.reason).toBe('blocked_address');
    expect(error.range).toBe('loopback');
    expect(error.message).toContain('localhost');
  });

  it('refuses a host when any of its addresses is internal', async () => {
    const resolve: HostResolver = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.5', family: 4 },
    ];
    const error = await reasonOf(checkOutboundUrl('https://mixed.example/hook', { ...strict, resolve }));
    expect(error).toMatchObject({ reason: 'blocked_address', address: '10.0.0.5', range: 'private' });
  });

  it('accepts public addresses and names that resolve to them', async () => {
    await expect(checkOutboundUrl('https://8.8.8.8/hook', strict)).resolves.toBeInstanceOf(URL);
    await expect(checkOutboundUrl('https://[2606:4700:4700::1111]/hook', strict)).resolves.toBeInstanceOf(URL);
    const resolve: HostResolver = async () => [{ address: '93.184.216.34', family: 4 }];
    const url = await checkOutboundUrl('https://hooks.example.com/services/T1', { ...strict, resolve });
    expect(url.hostname).toBe('hooks.example.com');
  });

  it('refuses other schemes, http unless allowed, credentials, garbage and unresolvable hosts', async () => {
    expect((await reasonOf(checkOutboundUrl('ftp://8.8.8.8/x', strict))).reason).toBe('scheme_not_allowed');
    expect((await reasonOf(checkOutboundUrl('file:///etc/passwd', strict))).reason).toBe('scheme_not_allowed');
    expect((await reasonOf(checkOutboundUrl('http://8.8.8.8/x', strict))).reason).toBe('http_not_allowed');
    await expect(checkOutboundUrl('http://8.8.8.8/x', { ...strict, allowHttp: true })).resolves.toBeInstanceOf(URL);
    expect((await reasonOf(checkOutboundUrl('https://user:pw@8.8.8.8/x', strict))).reason).toBe('credentials_in_url');
    expect((await reasonOf(checkOutboundUrl('not a url', strict))).reason).toBe('invalid_url');
    const resolve: HostResolver = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    expect((await reasonOf(checkOutboundUrl('https://nowhere.invalid/x', { ...strict, resolve }))).reason).toBe('unresolvable');
  });

  it('allows every internal address with OUTBOUND_ALLOW_PRIVATE_NETWORKS=true', async () => {
    const open = { allowPrivate: true, allowHttp: false };
    for (const [url] of blocked) await expect(checkOutboundUrl(url, open)).resolves.toBeInstanceOf(URL);
    await expect(checkOutboundUrl('https://localhost/hook', open)).resolves.toBeInstanceOf(URL);
    expect((await reasonOf(checkOutboundUrl('http://localhost/hook', open))).reason).toBe('http_not_allowed');
  });
});

describe('address helpers', () => {
  it('parses the numeric IPv4 forms and unwraps IPv4-mapped IPv6', () => {
    for (const form of ['2852039166', '0251.0376.0251.0376', '0xa9fea9fe', '[::ffff:169.254.169.254]']) {
      expect(parseIpLiteral(form)?.toString()).toBe('169.254.169.254');
    }
    expect(parseIpLiteral('example.com')).toBeNull();
  });

  it('names the range of an address, null for public unicast', () => {
    expect(blockedRange('1.1.1.1')).toBeNull();
    expect(blockedRange('168.63.129.17')).toBeNull();
    expect(blockedRange('169.254.169.254')).toBe('metadata');
    expect(blockedRange('2002:7f00:1::1')).toBe('6to4');
    expect(blockedRange('::7f00:1')).toBe('ipv4Compatible');
    expect(blockedRange('::')).toBe('unspecified');
    expect(blockedRange('::1')).toBe('loopback');
    expect(blockedRange('2606:4700:4700::1111')).toBeNull();
  });
});

describe('createOutboundAgent', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('refuses at connect time a name that resolves to loopback, and an IP literal', async () => {
    const agent = createOutboundAgent({ allowPrivate: false, connectTimeoutMs: 2_000 });
    try {
      for (const host of ['localhost', '127.0.0.1']) {
        const error = await request(`http://${host}:${port}/`, { dispatcher: agent }).then(
          () => null,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(OutboundBlockedError);
        expect((error as OutboundBlockedError).range).toBe('loopback');
      }
    } finally {
      await agent.close();
    }
  });

  it('connects to private addresses when allowed', async () => {
    const agent = createOutboundAgent({ allowPrivate: true });
    try {
      for (const host of ['localhost', '127.0.0.1']) {
        const res = await request(`http://${host}:${port}/`, { dispatcher: agent });
        expect(res.statusCode).toBe(200);
        expect(await res.body.text()).toBe('ok');
      }
    } finally {
      await agent.close();
    }
  });
});
