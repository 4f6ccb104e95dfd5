import type { AppConfig } from '../config/app-config';
import { createBoundedResolver, HostResolver } from './host-resolver';

/**
 * Injection token of the HostResolver for hosts a customer chose (webhook and team-chat receivers,
 * provider targets: registration, model discovery, the proxy's calls). Nothing provides it in the
 * services (`outboundResolver(config)` is used); tests provide one that asks a name server of their own.
 */
export const OUTBOUND_RESOLVER = Symbol('OUTBOUND_RESOLVER');

/**
 * The resolver of every lookup of a customer-supplied host: `createBoundedResolver` (c-ares on the
 * event loop, cancelled at the caller's deadline, never getaddrinfo on libuv's four pool threads,
 * which a name server that never answers would hold and so stall every other lookup of the process).
 * Names the name servers do not know fall back to the hosts file only where
 * OUTBOUND_ALLOW_PRIVATE_NETWORKS is on (development and tests). `servers`: name servers to ask
 * instead of the system's (tests).
 */
export function outboundResolver(config: Pick<AppConfig, 'OUTBOUND_ALLOW_PRIVATE_NETWORKS'>, servers?: string[]): HostResolver {
  return createBoundedResolver({ servers, systemFallback: config.OUTBOUND_ALLOW_PRIVATE_NETWORKS });
}
