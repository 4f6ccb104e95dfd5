import { lookup as systemLookup, Resolver } from 'node:dns/promises';
import { raceTimeout } from '../async/race-timeout';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/**
 * Resolves a host name to every address. `timeoutMs` bounds the lookup where the resolver honours
 * it (`createBoundedResolver`); node:dns `lookup` with `all: true` by default, which does not.
 */
export type HostResolver = (hostname: string, timeoutMs?: number) => Promise<ResolvedAddress[]>;

/** The host name did not resolve within its deadline: its name servers did not answer in time. */
export class HostLookupTimeoutError extends Error {
  readonly code = 'ETIMEOUT';

  constructor(
    readonly hostname: string,
    readonly timeoutMs: number,
  ) {
    super(`The host ${hostname} did not resolve within ${timeoutMs} ms`);
    this.name = 'HostLookupTimeoutError';
  }
}

export interface BoundedResolverOptions {
  /** Name servers (`address` or `address:port`) to ask instead of the system's (tests: a fake name server). */
  servers?: string[];
  /**
   * Names the name servers do not know are looked up once more with getaddrinfo (the hosts file,
   * search domains), within what is left of the deadline. `OUTBOUND_ALLOW_PRIVATE_NETWORKS` only:
   * such names are local ones, and getaddrinfo holds a libuv pool thread for as long as the system
   * resolver waits, which a customer's name server must not be able to arrange.
   */
  systemFallback: boolean;
}

/** Deadline of a lookup whose caller names none. */
export const DEFAULT_LOOKUP_TIMEOUT_MS = 10_000;
/** Queries sent to each name server before c-ares gives up (the wait doubles each round). */
const TRIES = 3;
/** "No such name" and "no address of this family": the name is answered, with nothing. */
const NOT_FOUND = new Set(['ENOTFOUND', 'ENODATA', 'ENONAME']);

/**
 * A HostResolver that never uses libuv's thread pool and never outlives its deadline. It asks the
 * name servers directly through c-ares (`dns.promises.Resolver`: A and AAAA, on the event loop),
 * and cancels whatever is still outstanding when the deadline passes. getaddrinfo (`dns.lookup`)
 * would hold one of the pool's four threads until the system resolver gave up, whatever our
 * deadline said, and four slow names would stall every other pool user of the process (file
 * writes of the embedded store, zlib, crypto).
 *
 * c-ares does not read the hosts file: `localhost` and `*.localhost` (RFC 6761) are answered here
 * as loopback, IP literals never reach a resolver, and other local names need `systemFallback`.
 * Every query must end with an answer (addresses, or none): a name server error fails the lookup,
 * so no address of the name goes unchecked.
 */
export function createBoundedResolver(options: BoundedResolverOptions): HostResolver {
  return async (hostname, timeoutMs = DEFAULT_LOOKUP_TIMEOUT_MS) => {
    const loopback = loopbackAddresses(hostname);
    if (loopback) return loopback;
    const started = performance.now();
    const found = await queryNameServers(hostname, timeoutMs, options.servers);
    if (found.length > 0 || !options.systemFallback) return found;
    // Promise.race keeps a late rejection handled; the pool thread stays until getaddrinfo returns.
    const left = Math.max(0, timeoutMs - (performance.now() - started));
    return raceTimeout(systemLookup(hostname, { all: true, verbatim: true }), left, () => {
      throw new HostLookupTimeoutError(hostname, timeoutMs);
    });
  };
}

/** `localhost`, `*.localhost` and their absolute forms: loopback, as the hosts file would say. */
function loopbackAddresses(hostname: string): ResolvedAddress[] | null {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  if (name !== 'localhost' && !name.endsWith('.localhost')) return null;
  return [
    { address: '127.0.0.1', family: 4 },
    { address: '::1', family: 6 },
  ];
}

async function queryNameServers(hostname: string, timeoutMs: number, servers: string[] | undefined): Promise<ResolvedAddress[]> {
  // A channel of its own: `cancel()` ends this lookup's queries only. The first wait is a quarter of
  // the deadline (then about twice, four times that), so the deadline, not c-ares, ends a silence.
  const resolver = new Resolver({ timeout: Math.max(50, Math.floor(timeoutMs / 4)), tries: TRIES });
  if (servers) resolver.setServers(servers);
  const family = async (query: Promise<string[]>, family: 4 | 6): Promise<ResolvedAddress[]> => {
    try {
      return (await query).map((address) => ({ address, family }));
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (typeof code === 'string' && NOT_FOUND.has(code)) return [];
      if (code === 'ETIMEOUT') throw new HostLookupTimeoutError(hostname, timeoutMs);
      throw error;
    }
  };
  const answers = Promise.all([family(resolver.resolve4(hostname), 4), family(resolver.resolve6(hostname), 6)]);
  try {
    const [v4, v6] = await raceTimeout(answers, timeoutMs, () => {
      throw new HostLookupTimeoutError(hostname, timeoutMs);
    });
    return [...v4, ...v6];
  } finally {
    // The deadline passed or one family failed: the other queries end now (ECANCELLED, ignored).
    resolver.cancel();
  }
}
