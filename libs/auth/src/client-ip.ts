import ipaddr from 'ipaddr.js';

/** Parses an address, unwrapping IPv4-mapped IPv6 (`::ffff:10.0.0.1` → `10.0.0.1`). */
export function parseIp(value: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const trimmed = value.trim().replace(/^\[|\]$/g, '');
  if (!isStrictAddress(trimmed)) return null;
  const parsed = ipaddr.parse(trimmed);
  return parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress() ? (parsed as ipaddr.IPv6).toIPv4Address() : parsed;
}

/** Whether `ip` matches an entry: a single address or a CIDR range. Malformed entries match nothing. */
export function ipMatches(ip: string, entry: string): boolean {
  const address = parseIp(ip);
  if (!address) return false;
  try {
    if (entry.includes('/')) {
      if (!isStrictCidr(entry)) return false;
      let [range, bits] = ipaddr.parseCIDR(entry.trim());
      if (range.kind() === 'ipv6' && (range as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
        range = (range as ipaddr.IPv6).toIPv4Address();
        bits -= 96;
      }
      return address.kind() === range.kind() && address.match(range, bits);
    }
    const single = parseIp(entry);
    return single !== null && single.kind() === address.kind() && single.toNormalizedString() === address.toNormalizedString();
  } catch {
    return false;
  }
}

/** Whether a string is a valid allowlist entry (an address or a CIDR range). */
export function isValidIpEntry(entry: string): boolean {
  return entry.includes('/') ? isStrictCidr(entry) : parseIp(entry) !== null;
}

/**
 * The client's address. `X-Forwarded-For` is honoured only when the connection comes from a
 * trusted proxy; then the right-most address that is not itself a trusted proxy is the client.
 * '' when the socket has no address any more (the client closed it before its request was handled):
 * it matches no allowlist and no trusted proxy.
 */
export function clientIp(socketAddress: string | undefined, forwardedFor: string | string[] | undefined, trustedProxies: readonly string[]): string {
  if (!socketAddress) return '';
  // The common case stays off the parser: no trusted proxies, an address straight from the socket.
  if (trustedProxies.length === 0 || !forwardedFor) return socketAddress.startsWith('::ffff:') && socketAddress.includes('.') ? socketAddress.slice(7) : socketAddress;
  const socket = parseIp(socketAddress)?.toString() ?? socketAddress;
  const trusted = (ip: string) => trustedProxies.some((entry) => ipMatches(ip, entry));
  if (!forwardedFor || trustedProxies.length === 0 || !trusted(socket)) return socket;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor)
    .split(',')
    .map((hop) => hop.trim())
    .filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = parseIp(withoutPort(hops[i]))?.toString();
    if (!hop) return socket;
    if (!trusted(hop)) return hop;
  }
  return socket;
}

/** A forwarded hop's address without the port some load balancers append (`203.0.113.7:5555`, `[2001:db8::7]:443`). */
function withoutPort(hop: string): string {
  const match = /^(\d{1,3}(?:\.\d{1,3}){3}):(\d{1,5})$/.exec(hop) ?? /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(hop);
  return match && (match[2] === undefined || Number(match[2]) <= 65_535) ? match[1] : hop;
}

/**
 * An IPv6 address, or an IPv4 address in four decimal parts. ipaddr.js also takes the inet_aton
 * shorthands (`127.1`, `2130706433`, octal `010.0.0.1`), which would make a zero-padded allowlist
 * entry such as `192.168.001.010` silently mean another address: those are refused.
 */
function isStrictAddress(value: string): boolean {
  if (value.includes(':')) return ipaddr.IPv6.isValid(value);
  return ipaddr.IPv4.isValidFourPartDecimal(value) && !value.split('.').some((part) => part.length > 1 && part.startsWith('0'));
}

function isStrictCidr(entry: string): boolean {
  const [address, bits, extra] = entry.trim().split('/');
  return extra === undefined && /^\d{1,3}$/.test(bits ?? '') && isStrictAddress(address.replace(/^\[|\]$/g, '')) && ipaddr.isValidCIDR(entry.trim());
}
