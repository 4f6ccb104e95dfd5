import ipaddr from 'ipaddr.js';

/**
 * An IPv6 address, or an IPv4 address in four decimal parts. ipaddr.js also takes the inet_aton
 * shorthands (`127.1`, `2130706433`, octal `010.0.0.1`), which would make a zero-padded entry such
 * as `192.168.001.010` silently mean another address: those are refused.
 */
export function isStrictIpAddress(value: string): boolean {
  if (value.includes(':')) return ipaddr.IPv6.isValid(value);
  return ipaddr.IPv4.isValidFourPartDecimal(value) && !value.split('.').some((part) => part.length > 1 && part.startsWith('0'));
}

/** A CIDR range (`10.0.0.0/8`, `2001:db8::/32`, `[2001:db8::]/32`) whose address is strict and whose prefix fits it. */
export function isStrictIpCidr(entry: string): boolean {
  const [address, bits, extra] = entry.trim().split('/');
  return extra === undefined && /^\d{1,3}$/.test(bits ?? '') && isStrictIpAddress(address.replace(/^\[|\]$/g, '')) && ipaddr.isValidCIDR(entry.trim());
}

/** Whether a string is a valid IP allowlist or trusted-proxy entry: an address or a CIDR range. */
export function isValidIpEntry(entry: string): boolean {
  const trimmed = entry.trim();
  return trimmed.includes('/') ? isStrictIpCidr(trimmed) : isStrictIpAddress(trimmed.replace(/^\[|\]$/g, ''));
}
