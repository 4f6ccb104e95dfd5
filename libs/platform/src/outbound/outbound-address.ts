import ipaddr from 'ipaddr.js';

/** Why an outbound destination was refused. */
export type OutboundBlockReason =
  | 'invalid_url'
  | 'scheme_not_allowed'
  | 'http_not_allowed'
  | 'credentials_in_url'
  | 'unresolvable'
  | 'lookup_timeout'
  | 'blocked_address';

/**
 * A destination the service refuses to call (DECISIONS.md "Outbound safety"): callers turn it into
 * their surface's 400 (registration) or a failed attempt (delivery, discovery).
 */
export class OutboundBlockedError extends Error {
  constructor(
    readonly reason: OutboundBlockReason,
    message: string,
    /** The refused address and the range it belongs to, when the refusal is about an address. */
    readonly address: string | null = null,
    readonly range: string | null = null,
  ) {
    super(message);
    this.name = 'OutboundBlockedError';
  }
}

/**
 * Cloud metadata and host-agent endpoints, refused and named `metadata` in messages: AWS, GCP,
 * Azure, DigitalOcean and others' `169.254.169.254` (link-local anyway), AWS's IPv6 `fd00:ec2::254`
 * and GCP's `fd20:ce::254` (unique-local anyway), Alibaba Cloud's `100.100.100.200` (CGNAT anyway),
 * Oracle Cloud's `192.0.0.192` (IETF-reserved anyway), and Azure's wireserver `168.63.129.16`: a
 * public address, otherwise allowed, that answers only from inside Azure (host agent, DNS, health
 * probes), where a call from the service would reach its own host's fabric.
 */
export const METADATA_ADDRESSES: ReadonlySet<string> = new Set(['169.254.169.254', 'fd00:ec2::254', 'fd20:ce::254', '100.100.100.200', '192.0.0.192', '168.63.129.16']);

/**
 * Parses an IP literal (brackets allowed) in any form WHATWG and inet_aton accept: dotted decimal,
 * a single decimal number (`2852039166`), octal (`0251.0376.0251.0376`) and hex (`0xa9fea9fe`).
 * IPv4-mapped IPv6 (`::ffff:127.0.0.1`) is unwrapped to its IPv4 address. Null for a host name.
 */
export function parseIpLiteral(host: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const value = host.trim().replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  if (ipaddr.IPv6.isValid(value)) parsed = ipaddr.IPv6.parse(value);
  else if (ipaddr.IPv4.isValid(value)) parsed = ipaddr.IPv4.parse(value);
  else return null;
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) return (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed;
}

/**
 * The special range an address belongs to (`loopback`, `private`, `linkLocal`, `carrierGradeNat`,
 * `uniqueLocal`, `multicast`, `unspecified`, `metadata`, ...), or null for a public unicast address.
 * Only plain unicast passes: every special-purpose range of IANA's registries is refused, including
 * IPv6 transition ranges (6to4, Teredo, NAT64, IPv4-translated, IPv4-compatible) that can embed an
 * internal IPv4 address.
 */
export function blockedRange(address: string): string | null {
  const parsed = parseIpLiteral(address);
  if (!parsed) return 'invalid';
  const normalized = parsed.toNormalizedString();
  if (METADATA_ADDRESSES.has(parsed.toString()) || METADATA_ADDRESSES.has(normalized)) return 'metadata';
  const range = parsed.range();
  // IPv4-compatible IPv6 (`::a.b.c.d`, deprecated by RFC 4291) is not in ipaddr.js's special ranges.
  if (range === 'unicast' && parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).parts.slice(0, 6).every((part) => part === 0)) return 'ipv4Compatible';
  return range === 'unicast' ? null : range;
}

/** Whether a host string is an IP literal (in any accepted numeric form). */
export function isIpLiteral(host: string): boolean {
  return parseIpLiteral(host) !== null;
}

/** Throws OutboundBlockedError when the address is not public unicast (unless private networks are allowed). */
export function assertPublicAddress(address: string, allowPrivate: boolean, host = address): void {
  if (allowPrivate) return;
  const range = blockedRange(address);
  if (range === null) return;
  const shown = host === address ? address : `${host} (${address})`;
  throw new OutboundBlockedError(
    'blocked_address',
    `Outbound requests to ${shown} are not allowed: the address is in a non-public range (${range})`,
    address,
    range,
  );
}
