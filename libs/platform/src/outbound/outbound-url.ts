import { lookup as dnsLookup } from 'node:dns/promises';
import { raceTimeout } from '../async/race-timeout';
import { HostLookupTimeoutError, HostResolver, ResolvedAddress } from './host-resolver';
import { assertPublicAddress, OutboundBlockedError, parseIpLiteral } from './outbound-address';

export interface OutboundCheckOptions {
  /** `OUTBOUND_ALLOW_PRIVATE_NETWORKS`: development and tests only. */
  allowPrivate: boolean;
  /** Accept `http://` (webhooks: `WEBHOOK_ALLOW_HTTP`; model discovery of self-hosted targets). */
  allowHttp: boolean;
  /** Replaces node:dns `lookup` (webhooks: `createBoundedResolver`; tests). */
  resolve?: HostResolver;
  /**
   * Deadline of the host lookup, handed to the resolver and enforced here too: past it the check
   * throws `lookup_timeout`. Without it the lookup takes as long as the resolver does.
   */
  timeoutMs?: number;
}

const systemResolver: HostResolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * Checks a URL before it is stored or called (DECISIONS.md "Outbound safety"): it must parse, use
 * https (or http when allowed), carry no credentials, and every address its host resolves to must
 * be public unicast: loopback, RFC 1918, link-local (metadata `169.254.169.254` included), CGNAT
 * `100.64/10`, unique-local `fc00::/7`, unspecified, multicast, IPv4-mapped IPv6 of those and the
 * numeric host forms (`2852039166`, `0251.0376.0251.0376`, `0xa9fea9fe`) are refused.
 *
 * A check at registration time does not stop DNS rebinding: make the request itself through
 * `createOutboundAgent`, which checks the address again at connect time, and never follow redirects.
 */
export async function checkOutboundUrl(url: string, options: OutboundCheckOptions): Promise<URL> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new OutboundBlockedError('invalid_url', 'Not a valid absolute URL');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new OutboundBlockedError('scheme_not_allowed', `The ${parsed.protocol.replace(/:$/, '')} scheme is not allowed; use https`);
  }
  if (parsed.protocol === 'http:' && !options.allowHttp) {
    throw new OutboundBlockedError('http_not_allowed', 'The URL must use https://');
  }
  if (parsed.username || parsed.password) {
    throw new OutboundBlockedError('credentials_in_url', 'The URL must not carry a user name or password');
  }
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (!host) throw new OutboundBlockedError('invalid_url', 'The URL has no host');
  const literal = parseIpLiteral(host);
  if (literal) {
    assertPublicAddress(literal.toString(), options.allowPrivate, host);
    return parsed;
  }
  let addresses: ResolvedAddress[];
  try {
    addresses = await resolveWithin(host, options.resolve ?? systemResolver, options.timeoutMs);
  } catch (error) {
    if (error instanceof HostLookupTimeoutError) throw new OutboundBlockedError('lookup_timeout', error.message);
    throw new OutboundBlockedError('unresolvable', `The host ${host} does not resolve`);
  }
  if (addresses.length === 0) throw new OutboundBlockedError('unresolvable', `The host ${host} does not resolve`);
  for (const { address } of addresses) assertPublicAddress(address, options.allowPrivate, host);
  return parsed;
}

function resolveWithin(host: string, resolve: HostResolver, timeoutMs: number | undefined): Promise<ResolvedAddress[]> {
  if (timeoutMs === undefined) return resolve(host);
  return raceTimeout(resolve(host, timeoutMs), timeoutMs, () => {
    throw new HostLookupTimeoutError(host, timeoutMs);
  });
}
