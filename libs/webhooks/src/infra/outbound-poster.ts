import { Agent, request } from 'undici';
import { checkOutboundUrl, createBoundedResolver, createOutboundAgent, HostResolver, OutboundBlockedError, raceTimeout, scrubSecrets, secretsOfUrl, SERVICE_VERSION } from '@svc/platform';

/** Injection token of the dispatcher's OutboundPoster. */
export const OUTBOUND_POSTER = Symbol('OUTBOUND_POSTER');

export interface OutboundPosterOptions {
  /** `OUTBOUND_ALLOW_PRIVATE_NETWORKS`. */
  allowPrivate: boolean;
  /** `WEBHOOK_ALLOW_HTTP`. */
  allowHttp: boolean;
  /** The whole exchange (resolving the host, connect, headers, the start of the body) must finish within this. */
  timeoutMs: number;
  /** Name servers to ask instead of the system's (tests: a fake name server). */
  dnsServers?: string[];
}

/** What one POST came to. */
export interface PostOutcome {
  /** HTTP status, or null when no response arrived (refused, timed out, connection error). */
  statusCode: number | null;
  /** From the start of the attempt to the response headers (or to the failure). */
  latencyMs: number;
  /** Null on a 2xx; a short reason otherwise (`HTTP 503: <start of the body>`, `timed out after 10000 ms`, ...). */
  error: string | null;
  /**
   * The destination is refused by the outbound-safety rules (private address, http, credentials
   * in the URL): retrying cannot help. A name that does not resolve is not blocked (DNS may heal).
   */
  blocked: boolean;
}

/** Characters of a failed response's body kept in the error. */
const BODY_SNIPPET_CHARS = 200;
const BODY_READ_LIMIT = 4_096;
export const USER_AGENT = `svc-webhook-dispatcher/${SERVICE_VERSION}`;

/**
 * POSTs JSON to user-supplied URLs (webhooks, team chat) under DECISIONS.md "Outbound safety":
 * the URL is checked first (`checkOutboundUrl`: scheme, credentials, every resolved address), the
 * connection goes through `createOutboundAgent`, which checks the address again when the socket
 * connects (no DNS rebinding), and redirects are never followed (a 3xx is the outcome). One
 * deadline covers the whole exchange. Never throws.
 *
 * Host names are resolved by `createBoundedResolver` both times: c-ares on the event loop, cancelled
 * at the deadline, never getaddrinfo on libuv's four pool threads, which a customer's name server
 * that never answers would hold past the deadline, stalling the process's file writes and crypto.
 */
export class OutboundPoster {
  private readonly agent: Agent;
  private readonly resolve: HostResolver;
  private readonly controllers = new Set<AbortController>();

  constructor(private readonly options: OutboundPosterOptions) {
    // Connecting (TCP and TLS) may take the whole deadline, like every other part of the exchange.
    // The poster's own timer is that deadline (see `post`). undici keeps its connect timeout on coarse
    // timers (1 s resolution) that can fire up to half a second early, so that timeout comes a second
    // later and only closes a connection attempt the timer has already given up on.
    // The hosts file and search domains (getaddrinfo) only for names the name servers do not know,
    // and only where private addresses are allowed (development and tests).
    this.resolve = createBoundedResolver({ servers: options.dnsServers, systemFallback: options.allowPrivate });
    this.agent = createOutboundAgent({ allowPrivate: options.allowPrivate, connectTimeoutMs: options.timeoutMs + 1_000, resolve: this.resolve });
  }

  /**
   * POSTs `body` to `url`. The outcome's error never holds the credential parts of `url`
   * (`secretsOfUrl`: user info, credential query values, and the path of an incoming webhook or,
   * with `secretPath`, of any URL): a receiver's error page that echoes the request would otherwise
   * put a team-chat URL's secret into the logs, the queue's failed-job record and the integration's
   * `last_error`.
   */
  async post(url: string, body: string, headers: Record<string, string>, options: { secretPath?: boolean } = {}): Promise<PostOutcome> {
    const secrets = secretsOfUrl(url, options.secretPath);
    const outcome = await this.attempt(url, body, headers, secrets);
    return outcome.error === null ? outcome : { ...outcome, error: scrubSecrets(outcome.error, secrets) };
  }

  private async attempt(url: string, body: string, headers: Record<string, string>, secrets: readonly string[]): Promise<PostOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const remaining = () => Math.max(0, this.options.timeoutMs - elapsed());
    let timedOut = false;
    try {
      // A name server that never answers must not stretch the attempt past its deadline either: the
      // lookup is cancelled then (`lookup_timeout`), and this race is the backstop.
      const { allowPrivate, allowHttp, timeoutMs } = this.options;
      await raceTimeout(checkOutboundUrl(url, { allowPrivate, allowHttp, resolve: this.resolve, timeoutMs }), timeoutMs, () => {
        timedOut = true;
        throw new Error('timeout');
      });
    } catch (error) {
      return this.failure(error, elapsed(), timedOut);
    }
    const controller = new AbortController();
    this.controllers.add(controller);
    try {
      const pending = request(url, {
        method: 'POST',
        headers: { 'User-Agent': USER_AGENT, ...headers },
        body,
        dispatcher: this.agent,
        signal: controller.signal,
      });
      // An answer that comes after the deadline is dropped (the abort then closes its connection).
      pending.then((late) => timedOut && late.body.destroy(), () => undefined);
      // The deadline is this race: undici answers an abort only when its connection attempt ends
      // (nodejs/undici#386), so a TLS handshake that never finishes would outlast the signal alone.
      const response = await raceTimeout(pending, remaining(), () => {
        timedOut = true;
        controller.abort(new Error('timeout'));
        throw new Error('timeout');
      });
      const latencyMs = elapsed();
      const { statusCode, body: responseBody } = response;
      // The body is read within what is left of the deadline, then dropped: a receiver that
      // answers at once and trickles its body must not hold this attempt (and a worker slot).
      const cut = setTimeout(() => responseBody.destroy(), remaining());
      try {
        if (statusCode >= 200 && statusCode < 300) {
          await responseBody.dump({ limit: BODY_READ_LIMIT }).catch(() => undefined);
          return { statusCode, latencyMs, error: null, blocked: false };
        }
        const snippet = await readSnippet(responseBody, secrets);
        const redirect = statusCode >= 300 && statusCode < 400 ? ' (redirects are not followed)' : '';
        return { statusCode, latencyMs, error: `HTTP ${statusCode}${redirect}${snippet ? `: ${snippet}` : ''}`, blocked: false };
      } finally {
        clearTimeout(cut);
      }
    } catch (error) {
      return this.failure(error, elapsed(), timedOut);
    } finally {
      this.controllers.delete(controller);
    }
  }

  /** Aborts what is in flight and closes the connection pool. */
  async close(): Promise<void> {
    for (const controller of this.controllers) controller.abort(new Error('the dispatcher is shutting down'));
    await this.agent.close().catch(() => undefined);
  }

  private failure(error: unknown, latencyMs: number, timedOut: boolean): PostOutcome {
    const blocked = blockedError(error);
    // A lookup that ran out of the deadline is a timeout like any other (retried), not a refusal.
    const lookupTimedOut = blocked?.reason === 'lookup_timeout';
    if (blocked && !lookupTimedOut) {
      return { statusCode: null, latencyMs, error: `refused by outbound safety: ${blocked.message}`, blocked: blocked.reason !== 'unresolvable' };
    }
    if (timedOut || lookupTimedOut || errorCode(error) === 'UND_ERR_CONNECT_TIMEOUT') {
      return { statusCode: null, latencyMs, error: `timed out after ${this.options.timeoutMs} ms`, blocked: false };
    }
    return { statusCode: null, latencyMs, error: describeNetworkError(error), blocked: false };
  }
}

function blockedError(error: unknown): OutboundBlockedError | null {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current; depth += 1) {
    if (current instanceof OutboundBlockedError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}

function errorCode(error: unknown): string | null {
  const err = error as { code?: unknown; cause?: { code?: unknown } } | null;
  return typeof err?.code === 'string' ? err.code : typeof err?.cause?.code === 'string' ? err.cause.code : null;
}

function describeNetworkError(error: unknown): string {
  const err = error as { message?: unknown; cause?: { message?: unknown } } | null;
  const code = errorCode(error);
  const message = typeof err?.cause?.message === 'string' ? err.cause.message : typeof err?.message === 'string' ? err.message : String(error);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}

/**
 * The start of a failed response's body: what arrived before the limit, the end, or the deadline's
 * cut, with `secrets` scrubbed before it is cut (so no piece of one is left at the cut).
 */
async function readSnippet(body: AsyncIterable<Buffer | string> & { destroy(): unknown }, secrets: readonly string[]): Promise<string> {
  let text = '';
  try {
    for await (const chunk of body) {
      text += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
      if (text.length >= BODY_READ_LIMIT) break;
    }
  } catch {
    // Cut at the deadline, or the connection broke: keep what arrived.
  }
  body.destroy();
  const flat = scrubSecrets(text, secrets).replace(/\s+/g, ' ').trim();
  return flat.length <= BODY_SNIPPET_CHARS ? flat : `${flat.slice(0, BODY_SNIPPET_CHARS - 1)}…`;
}
