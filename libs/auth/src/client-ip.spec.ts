import { clientIp, ipMatches, isValidIpEntry, parseIp } from './client-ip';

describe('parseIp', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    [' 203.0.113.7 ', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['::ffff:cb00:7107', '203.0.113.7'],
    ['[2001:db8::1]', '2001:db8::1'],
    ['2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
  ])('parses %j as %s (IPv4-mapped IPv6 unwrapped)', (input, expected) => {
    expect(parseIp(input)?.toString()).toBe(expected);
  });

  it.each(['', 'localhost', '256.1.1.1', '203.0.113.7:443', '2001:db8::g', '10.0.0.0/8', 'unknown'])('refuses %j', (input) => {
    expect(parseIp(input)).toBeNull();
  });

  // inet_aton's legacy forms are not what anyone means in an allowlist or X-Forwarded-For: a
  // zero-padded '192.168.001.010' would otherwise be octal (192.168.1.8). Node's net.isIP refuses them.
  it('refuses the legacy IPv4 forms (shorthand, hex, integer, octal)', () => {
    const forms = ['1.2.3', '127.1', '0x7f.0.0.1', '2130706433', '010.0.0.1', '192.168.001.010'];
    expect(forms.map((input) => [input, parseIp(input)?.toString() ?? null])).toEqual(forms.map((input) => [input, null]));
  });
});

describe('ipMatches', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7', true],
    ['203.0.113.7', '203.0.113.8', false],
    ['203.0.113.7', '203.0.113.0/24', true],
    ['203.0.114.7', '203.0.113.0/24', false],
    ['10.1.2.3', '10.0.0.0/8', true],
    ['10.1.2.3', '0.0.0.0/0', true],
    ['::ffff:10.1.2.3', '10.0.0.0/8', true],
    ['10.1.2.3', '::ffff:10.0.0.0/104', true],
    ['10.1.2.3', '::ffff:10.0.0.1', false],
    ['::ffff:10.0.0.1', '10.0.0.1', true],
    ['2001:db8::1', '2001:db8::/32', true],
    ['2001:db9::1', '2001:db8::/32', false],
    ['2001:db8::1', '2001:0db8:0000::0001', true],
    ['::1', '::1', true],
    ['127.0.0.1', '::1', false],
    // An IPv6 address never matches an IPv4 range, and the other way round.
    ['2001:db8::1', '0.0.0.0/0', false],
    ['203.0.113.7', '::/0', false],
  ])('%s against %s: %s', (ip, entry, expected) => {
    expect(ipMatches(ip, entry)).toBe(expected);
  });

  it.each([
    ['203.0.113.7', '203.0.113.0/33'],
    ['203.0.113.7', 'not-an-ip'],
    ['203.0.113.7', ''],
    ['203.0.113.7', '203.0.113.0/'],
    ['not-an-ip', '0.0.0.0/0'],
    ['', '203.0.113.7'],
  ])('malformed: %j against %j matches nothing', (ip, entry) => {
    expect(ipMatches(ip, entry)).toBe(false);
  });

  it('a zero-padded allowlist entry is not valid and never matches as octal', () => {
    expect({ valid: isValidIpEntry('192.168.001.010'), range: isValidIpEntry('010.0.0.0/8') }).toEqual({ valid: false, range: false });
    expect({ octal: ipMatches('192.168.1.8', '192.168.001.010'), shorthand: ipMatches('127.0.0.1', '127.1') }).toEqual({ octal: false, shorthand: false });
  });
});

describe('isValidIpEntry', () => {
  it.each([
    ['203.0.113.7', true],
    ['203.0.113.0/24', true],
    ['2001:db8::/32', true],
    ['::ffff:203.0.113.7', true],
    ['203.0.113.0/33', false],
    ['example.com', false],
    ['', false],
  ])('%j: %s', (entry, expected) => {
    expect(isValidIpEntry(entry)).toBe(expected);
  });
});

describe('clientIp', () => {
  const trusted = ['127.0.0.1', '10.0.0.0/8'];

  it("is '' once the client closed its socket (no address left), matching no allowlist and no trusted proxy", () => {
    expect(clientIp(undefined, undefined, [])).toBe('');
    expect(clientIp(undefined, '203.0.113.7', trusted)).toBe('');
    expect(ipMatches(clientIp(undefined, undefined, []), '0.0.0.0/0')).toBe(false);
  });

  it('is the socket address without trusted proxies, whatever X-Forwarded-For says', () => {
    expect(clientIp('127.0.0.1', '203.0.113.7', [])).toBe('127.0.0.1');
    expect(clientIp('::ffff:127.0.0.1', '203.0.113.7', [])).toBe('127.0.0.1');
    expect(clientIp('2001:db8::5', undefined, [])).toBe('2001:db8::5');
  });

  it('is the socket address when the peer is not a trusted proxy', () => {
    expect(clientIp('198.51.100.9', '203.0.113.7', trusted)).toBe('198.51.100.9');
    expect(clientIp('::ffff:198.51.100.9', '203.0.113.7', trusted)).toBe('198.51.100.9');
  });

  it('is the forwarded address when the peer is a trusted proxy (plain or IPv4-mapped)', () => {
    expect(clientIp('127.0.0.1', '203.0.113.7', trusted)).toBe('203.0.113.7');
    expect(clientIp('::ffff:127.0.0.1', '203.0.113.7', trusted)).toBe('203.0.113.7');
    expect(clientIp('10.2.3.4', ' 2001:db8::7 ', trusted)).toBe('2001:db8::7');
    expect(clientIp('127.0.0.1', '::ffff:203.0.113.7', trusted)).toBe('203.0.113.7');
  });

  it('walks a chain of proxies from the right to the first address that is not trusted', () => {
    // client, then two trusted proxies: the client is what the outermost trusted proxy saw.
    expect(clientIp('127.0.0.1', '203.0.113.7, 10.0.0.2, 10.0.0.3', trusted)).toBe('203.0.113.7');
    // A spoofed left-most entry is ignored: the right-most untrusted hop is the client.
    expect(clientIp('127.0.0.1', '198.51.100.1, 203.0.113.7', trusted)).toBe('203.0.113.7');
    expect(clientIp('127.0.0.1', '198.51.100.1, 203.0.113.7, 10.9.9.9', trusted)).toBe('203.0.113.7');
    // Repeated headers count as one list, in order.
    expect(clientIp('127.0.0.1', ['198.51.100.1', '203.0.113.7, 10.0.0.2'], trusted)).toBe('203.0.113.7');
  });

  it('reads a hop with the port some load balancers append (IPv4 address:port, [IPv6]:port)', () => {
    expect(clientIp('127.0.0.1', '203.0.113.7:5555', trusted)).toBe('203.0.113.7');
    expect(clientIp('127.0.0.1', '[2001:db8::7]:443', trusted)).toBe('2001:db8::7');
    expect(clientIp('127.0.0.1', '[2001:db8::7]', trusted)).toBe('2001:db8::7');
    // A trusted hop with a port is still trusted: the client is the hop before it.
    expect(clientIp('127.0.0.1', '203.0.113.7:5555, 10.0.0.2:80', trusted)).toBe('203.0.113.7');
  });

  it('is the left-most hop when every hop is trusted (a client inside a trusted range), never the proxy itself', () => {
    expect(clientIp('127.0.0.1', '10.0.0.2, 10.0.0.3', trusted)).toBe('10.0.0.2');
    expect(clientIp('127.0.0.1', '10.0.0.2', trusted)).toBe('10.0.0.2');
    expect(clientIp('10.0.0.9', '[::ffff:10.0.0.2]:443, 10.0.0.3', trusted)).toBe('10.0.0.2');
  });

  it('stops at a malformed hop and falls back to the socket address, never trusting garbage', () => {
    expect(clientIp('127.0.0.1', 'unknown', trusted)).toBe('127.0.0.1');
    expect(clientIp('127.0.0.1', '203.0.113.7, not-an-ip', trusted)).toBe('127.0.0.1');
    expect(clientIp('127.0.0.1', '203.0.113.7:99999', trusted)).toBe('127.0.0.1');
    expect(clientIp('127.0.0.1', '203.0.113.7:', trusted)).toBe('127.0.0.1');
    expect(clientIp('127.0.0.1', '2001:db8::7:5555:zz', trusted)).toBe('127.0.0.1');
    expect(clientIp('127.0.0.1', '', trusted)).toBe('127.0.0.1');
    expect(clientIp('127.0.0.1', ' , ', trusted)).toBe('127.0.0.1');
  });

  it('ignores malformed trusted-proxy entries instead of trusting everyone', () => {
    expect(clientIp('127.0.0.1', '203.0.113.7', ['not-an-ip', '127.0.0.1/99'])).toBe('127.0.0.1');
  });
});
