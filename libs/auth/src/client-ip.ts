import ipaddr from 'ipaddr.js';
import { isStrictIpAddress, isStrictIpCidr, isValidIpEntry } from '@svc/platform';

export { isValidIpEntry };

/** Parses an address, unwrapping IPv4-mapped IPv6 (`::ffff:10.0.0.1` → `10.0.0.1`). */
export function parseIp(value: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const trimmed = value.trim().replace(/^\[|\]$/g, '');
  if (!isStrictIpAddress(trimmed)) return null;
  const parsed = ipaddr.parse(trimmed);
  return parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress() ? (parsed as ipaddr.IPv6).toIPv4Address() : parsed;
}

/** Whether `ip` matches an entry: a single address or a CIDR range. Malformed entries match nothing. */
export function ipMatches(ip: string, entry: string): boolean {
  const address = parseIp(ip);
  if (!address) return false;
  try {
    if (entry.includes('/')) {
      if (!isStrictIpCidr(entry)) return false;
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

/**
 * The client's address. `X-Forwarded-For` is honoured only when the connection comes from a
 * trusted proxy; then the right-most address that is not itself a trusted proxy is the client, or
 * the left-most address when every hop is a trusted one.
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
  let client = socket;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = parseIp(withoutPort(hops[i]))?.toString();
    if (!hop) return socket;
    if (!trusted(hop)) return hop;
    // Every hop to its right is a trusted proxy that wrote it: when all of the chain is trusted, its
    // left-most address is the client (one inside a trusted range, such as a pod calling through the
    // Ingress), never the proxy the connection came from (proxy-addr, Express and Fastify agree).
    client = hop;
  }
  return client;
}

/** A forwarded hop's address without the port some load balancers append (`203.0.113.7:5555`, `[2001:db8::7]:443`). */
function withoutPort(hop: string): string {
  const match = /^(\d{1,3}(?:\.\d{1,3}){3}):(\d{1,5})$/.exec(hop) ?? /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(hop);
  return match && (match[2] === undefined || Number(match[2]) <= 65_535) ? match[1] : hop;
}
