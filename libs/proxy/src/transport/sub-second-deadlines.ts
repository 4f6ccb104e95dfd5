import { UpstreamFailure } from '../breaker/provider-breaker';
import type { ExchangeAbort, UpstreamDeadlines } from './upstream-client';

/**
 * The resolution of undici's own timers. undici keeps its connect, headers and body timeouts on a
 * timer wheel of its own (lib/util/timers.js `setFastTimeout`): one native timer ticking every
 * 499 ms for all of them, so that a request costs no timer of its own. A timeout is taken up on the
 * first tick after it was set and fires on the first tick its delay has passed at: a deadline of a
 * second or more passes up to ~0.5 s early or late, and one under a second after 0.5 to 1 s.
 */
export const UNDICI_TIMER_RESOLUTION_MS = 1_000;

/** Deadlines under undici's resolution are kept by `SubSecondDeadlines`; none by default (5 s, 120 s). */
export function needsSubSecondDeadlines(deadlines: UpstreamDeadlines): boolean {
  return deadlines.connectTimeoutMs < UNDICI_TIMER_RESOLUTION_MS || deadlines.firstByteTimeoutMs < UNDICI_TIMER_RESOLUTION_MS;
}

/**
 * The connect and first-byte deadlines of one exchange, kept to the millisecond by a native timer
 * when configured under a second (UPSTREAM_CONNECT_TIMEOUT_MS, UPSTREAM_FIRST_BYTE_TIMEOUT_MS):
 * only then, since it costs a timer per request that undici's wheel exists to avoid; deadlines of
 * a second or more stay undici's alone. The phases follow undici's: connect until the request
 * starts (its connection made, a pooled one at once), first byte until the answer's headers, then
 * each silence in the body (not while the relay has paused the read for a slow client). A passed
 * deadline aborts the exchange with the UpstreamFailure undici's own would have become. undici's
 * headers and body timeouts are turned off for a sub-second first-byte deadline (`undiciFirstByteMs`);
 * its connect timeout stays on, to end the connection attempt that this deadline has answered.
 */
export class SubSecondDeadlines {
  private timer: NodeJS.Timeout | undefined;
  private inBody = false;

  constructor(
    private readonly deadlines: UpstreamDeadlines,
    private readonly abort: ExchangeAbort,
  ) {}

  /** undici's `headersTimeout` and `bodyTimeout` for the dispatch: off (0) when this keeps the first-byte deadline. */
  static undiciFirstByteMs(deadlines: UpstreamDeadlines): number {
    return deadlines.firstByteTimeoutMs < UNDICI_TIMER_RESOLUTION_MS ? 0 : deadlines.firstByteTimeoutMs;
  }

  /** The request was handed to undici: the connect deadline runs. */
  dispatched(): void {
    if (this.deadlines.connectTimeoutMs < UNDICI_TIMER_RESOLUTION_MS) this.arm(this.deadlines.connectTimeoutMs, 'upstream connect timeout');
  }

  /** The request started on a connection: the first-byte deadline runs. */
  started(): void {
    this.clear();
    if (this.firstBytePrecise()) this.arm(this.deadlines.firstByteTimeoutMs, 'upstream first-byte timeout');
  }

  /** The answer's headers came: each silence in the body is bounded by the first-byte deadline. */
  headers(): void {
    this.clear();
    if (!this.firstBytePrecise()) return;
    this.inBody = true;
    this.armBody();
  }

  /** A chunk of the body came: the silence starts anew. */
  data(): void {
    this.timer?.refresh();
  }

  /** The relay stopped reading (a slow client): silence is not the provider's then. */
  paused(): void {
    this.clear();
  }

  resumed(): void {
    if (this.inBody && !this.abort.reason) this.armBody();
  }

  /** The exchange ended (its body's end, an error, an abort). */
  done(): void {
    this.inBody = false;
    this.clear();
  }

  private firstBytePrecise(): boolean {
    return this.deadlines.firstByteTimeoutMs < UNDICI_TIMER_RESOLUTION_MS;
  }

  private armBody(): void {
    this.arm(this.deadlines.firstByteTimeoutMs, 'upstream body timeout (the provider stalled while sending the body)');
  }

  private arm(ms: number, message: string): void {
    this.clear();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.inBody = false;
      this.abort.abort(new UpstreamFailure(message));
    }, ms);
    this.timer.unref();
  }

  private clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
