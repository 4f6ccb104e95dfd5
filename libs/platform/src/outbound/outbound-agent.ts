import { lookup as dnsLookup, LookupAddress, LookupOptions } from 'node:dns';
import { assertPublicAddress, OutboundBlockedError, parseIpLiteral } from './outbound-address';
import { Agent, BuildConnector, buildConnector } from './undici-parts';

export interface OutboundAgentOptions {
  /** `OUTBOUND_ALLOW_PRIVATE_NETWORKS`: development and tests only. */
  allowPrivate: boolean;
  /** Deadline to establish the connection (TCP and TLS). Default 5 s. */
  connectTimeoutMs?: number;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * The `lookup` handed to net/tls.connect: resolves every address, refuses the connection when any
 * is not public, and answers in the shape the caller asked for (`all` or a single address).
 */
export function safeLookup(allowPrivate: boolean) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) {
        callback(error, []);
        return;
      }
      try {
        if (addresses.length === 0) throw new OutboundBlockedError('unresolvable', `The host ${hostname} does not resolve`);
        for (const { address } of addresses) assertPublicAddress(address, allowPrivate, hostname);
      } catch (blocked) {
        callback(blocked as NodeJS.ErrnoException, []);
        return;
      }
      if (options.all) callback(null, addresses);
      else callback(null, addresses[0].address, addresses[0].family);
    });
  };
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
  const base = buildConnector({ timeout, lookup: safeLookup(options.allowPrivate) } as BuildConnector.BuildOptions);
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
