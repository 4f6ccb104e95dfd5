import { lookup as dnsLookup, LookupAddress, LookupOptions } from 'node:dns';
import { HostResolver, ResolvedAddress } from './host-resolver';
import { assertPublicAddress, OutboundBlockedError, parseIpLiteral } from './outbound-address';
import { Agent, BuildConnector, buildConnector } from './undici-parts';

export interface OutboundAgentOptions {
  /** `OUTBOUND_ALLOW_PRIVATE_NETWORKS`: development and tests only. */
  allowPrivate: boolean;
  /** Deadline to establish the connection (TCP and TLS). Default 5 s. */
  connectTimeoutMs?: number;
  /**
   * Resolves host names at connect time instead of getaddrinfo (webhooks: `createBoundedResolver`,
   * which keeps lookups off libuv's thread pool), given `connectTimeoutMs` as its deadline.
   */
  resolve?: HostResolver;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * The `lookup` handed to net/tls.connect: resolves every address (getaddrinfo, or `resolve` within
 * `timeoutMs`), refuses the connection when any is not public, and answers in the shape the caller
 * asked for (`all` or a single address).
 */
export function safeLookup(allowPrivate: boolean, resolve?: HostResolver, timeoutMs?: number) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    const resolved = (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => {
      if (error) {
        callback(error, []);
        return;
      }
      // Every address is checked, also those of the family the connection does not use.
      const usable = ofFamily(addresses, options.family);
      try {
        for (const { address } of addresses) assertPublicAddress(address, allowPrivate, hostname);
        if (usable.length === 0) throw new OutboundBlockedError('unresolvable', `The host ${hostname} does not resolve`);
      } catch (blocked) {
        callback(blocked as NodeJS.ErrnoException, []);
        return;
      }
      if (options.all) callback(null, usable);
      else callback(null, usable[0].address, usable[0].family);
    };
    if (!resolve) {
      dnsLookup(hostname, { ...options, all: true }, resolved);
      return;
    }
    resolve(hostname, timeoutMs).then(
      (addresses) => resolved(null, addresses),
      (error: NodeJS.ErrnoException) => resolved(error, []),
    );
  };
}

/** The addresses of the family net.connect asked for (4 or 6), or all of them. */
function ofFamily(addresses: ResolvedAddress[], family: LookupOptions['family']): LookupAddress[] {
  const wanted = family === 4 || family === 'IPv4' ? 4 : family === 6 || family === 'IPv6' ? 6 : 0;
  return wanted ? addresses.filter((entry) => entry.family === wanted) : addresses;
}

/**
 * An undici dispatcher for calls to user-supplied URLs (webhooks, team chat, model discovery). The
 * address is checked when the socket connects, after DNS resolution, which defeats DNS rebinding
 * (a name that resolved to a public address at registration and to 127.0.0.1 now); IP-literal
 * hosts, which skip DNS, are checked before connecting. Callers must not follow redirects
 * (`redirect: 'manual'` with fetch; undici `request` does not follow them).
 */
export function createOutboundAgent(options: OutboundAgentOptions): Agent {
  const timeout = options.connectTimeoutMs ?? 5_000;
  const base = buildConnector({ timeout, lookup: safeLookup(options.allowPrivate, options.resolve, timeout) } as BuildConnector.BuildOptions);
  const connect: BuildConnector.connector = (connectOptions, callback) => {
    const literal = parseIpLiteral(connectOptions.hostname);
    if (literal) {
      try {
        assertPublicAddress(literal.toString(), options.allowPrivate, connectOptions.hostname);
      } catch (blocked) {
        callback(blocked as Error, null);
        return;
      }
    }
    base(connectOptions, callback);
  };
  return new Agent({ connect });
}
