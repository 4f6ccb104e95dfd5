import { HostLookupTimeoutError, OutboundBlockedError, undiciErrors } from '@svc/platform';
import { UpstreamFailure } from '../breaker/provider-breaker';

/** How the gateway tells what undici threw apart (`classify`): the provider failing, the client, the request. */

/** The client went away before the upstream answered; not the provider's fault. */
export class ClientAbortedError extends Error {
  constructor() {
    super('client closed the request');
    this.name = 'ClientAbortedError';
  }
}

/**
 * undici refused to send the request as built: a header value no HTTP header can carry (a provider
 * key or a target header with a line break, a control or a non-ASCII character). The request's
 * fault, not the provider's: the breaker, shared by every organization, never counts it.
 */
export class UpstreamRequestInvalid extends Error {
  /** The header undici named (`invalid authorization header`), lower-cased. */
  readonly header: string | undefined;

  constructor(cause: Error) {
    super(cause.message, { cause });
    this.name = 'UpstreamRequestInvalid';
    this.header = /^invalid (\S+) header$/i.exec(cause.message)?.[1]?.toLowerCase();
  }
}

const FAILURE_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ETIMEDOUT',
  'ECONNABORTED',
  'ENETDOWN',
  'EHOSTDOWN',
  'EPROTO',
  // The provider's certificate (OpenSSL's codes; ERR_TLS_* and ERR_SSL_* are matched by prefix).
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  // c-ares (provider targets' hosts, `outboundResolver`): their name servers failed the lookup.
  'ESERVFAIL',
  'EREFUSED',
  'EBADRESP',
  'EFORMERR',
  'ENOTIMP',
  'EBADNAME',
  'ECANCELLED',
  'EOF',
]);

/** A connection failure's code: a listed one, or Node's TLS and OpenSSL families. */
function isConnectionFailure(code: string): boolean {
  return FAILURE_CODES.has(code) || code.startsWith('ERR_TLS_') || code.startsWith('ERR_SSL_');
}

/** The OutboundBlockedError or HostLookupTimeoutError behind an error (the connect-time lookup and address check), if any. */
function lookupCause(error: unknown): OutboundBlockedError | HostLookupTimeoutError | null {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth++) {
    if (cause instanceof OutboundBlockedError || cause instanceof HostLookupTimeoutError) return cause;
  }
  return null;
}

/**
 * Maps what undici threw to UpstreamFailure (counts against the breaker; a connection error, a
 * deadline or the provider's certificate), ClientAbortedError, the OutboundBlockedError of a refused
 * address, UpstreamRequestInvalid (a request undici would not send), or the error itself; `reason`: why the exchange was aborted, if it was.
 */
export function classify(error: unknown, reason?: Error | null): Error {
  if (reason instanceof ClientAbortedError || reason instanceof UpstreamFailure) return reason;
  if (error instanceof UpstreamFailure || error instanceof ClientAbortedError) return error;
  // A target whose address the outbound check refused at connect time: not the provider failing.
  // A name that does not resolve, or not within the connect deadline, is: like ENOTFOUND was.
  const lookup = lookupCause(error);
  if (lookup instanceof HostLookupTimeoutError) return new UpstreamFailure(`upstream host lookup timeout (${lookup.message})`, error);
  if (lookup?.reason === 'unresolvable') return new UpstreamFailure(`upstream connection error (${lookup.message})`, error);
  if (lookup) return lookup;
  const code = (error as { code?: string }).code ?? (error as { cause?: { code?: string } }).cause?.code;
  if (code === 'UND_ERR_INVALID_ARG' && error instanceof Error) return new UpstreamRequestInvalid(error);
  if (error instanceof undiciErrors.UndiciError || (code && isConnectionFailure(code))) {
    return new UpstreamFailure(describe(code, error), error);
  }
  return error instanceof Error ? error : new Error(String(error));
}

function describe(code: string | undefined, error: unknown): string {
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'upstream connect timeout';
    case 'UND_ERR_HEADERS_TIMEOUT':
      return 'upstream first-byte timeout';
    case 'UND_ERR_BODY_TIMEOUT':
      // The first-byte deadline also bounds each silence in the body (undici's bodyTimeout): a
      // passed deadline, answered 504 upstream_timeout like the others (upstreamError).
      return 'upstream body timeout (the provider stalled while sending the body)';
    case 'ECONNREFUSED':
      return 'upstream refused the connection';
    case 'ETIMEDOUT': {
      // The operating system gave up (a connect never answered; retransmissions or keep-alive probes
      // of an open connection unanswered): a timeout like the gateway's own deadlines, 504 upstream_timeout.
      const syscall = (error as { syscall?: string }).syscall ?? (error as { cause?: { syscall?: string } }).cause?.syscall;
      return `upstream ${syscall === 'connect' ? 'connect' : 'connection'} timeout (ETIMEDOUT: the operating system gave up)`;
    }
    default:
      return `upstream connection error (${code ?? (error as Error).message})`;
  }
}
