import CircuitBreaker from 'opossum';
import { performance } from 'node:perf_hooks';

export type BreakerState = 'closed' | 'open' | 'half_open';

/** SPEC.md "Provider circuit-breaker record". */
export interface BreakerRecord {
  provider: string;
  state: BreakerState;
  failure_count: number;
  failure_threshold: number;
  failure_window_seconds: number;
  recovery_timeout_seconds: number;
  last_failure_time: number | null;
  last_success_time: number | null;
  retry_after_seconds: number | null;
}

export interface BreakerOptions {
  failureThreshold: number;
  failureWindowMs: number;
  recoveryTimeoutMs: number;
}

export const DEFAULT_BREAKER_OPTIONS: BreakerOptions = {
  failureThreshold: 5,
  failureWindowMs: 60_000,
  recoveryTimeoutMs: 30_000,
};

/** Thrown by `admit` and `run` when the breaker refuses the call (open, or half-open with its probe in flight). */
export class BreakerOpenError extends Error {
  constructor(
    readonly provider: string,
    readonly retryAfterSeconds: number,
  ) {
    super(`Circuit breaker for ${provider} is open`);
    this.name = 'BreakerOpenError';
  }
}

/**
 * An error that counts against the breaker: 5xx, timeouts and connection errors. Anything else
 * thrown by the action (4xx, the client going away) passes through without counting.
 */
export class UpstreamFailure extends Error {
  constructor(
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
    this.name = 'UpstreamFailure';
  }
}

/**
 * How a call the breaker let through ended: `success` (an answer, read to its end), `failure` (an
 * UpstreamFailure: 5xx, a deadline, a connection error, a stream broken before its documented end),
 * `unjudged` (neither: a 4xx-like error, the client went away).
 */
export type CallOutcome = 'success' | 'failure' | 'unjudged';

/** The error's outcome for the breaker: an UpstreamFailure is a failure, anything else neither. */
export function outcomeOf(error: unknown): CallOutcome {
  return error instanceof UpstreamFailure ? 'failure' : 'unjudged';
}

/** One call the breaker let through (`ProviderBreaker.admit`). The first `settle` counts; later ones are ignored. */
export class BreakerCall {
  private settled = false;

  constructor(private readonly conclude: (outcome: CallOutcome) => void) {}

  settle(outcome: CallOutcome): void {
    if (this.settled) return;
    this.settled = true;
    this.conclude(outcome);
  }
}

/**
 * One provider's breaker, per DECISIONS.md: `failureThreshold` failures within `failureWindowMs`
 * open it; after `recoveryTimeoutMs` it is half-open and lets exactly one probe through; the
 * probe's success closes it, its failure re-opens it for another recovery period.
 *
 * opossum holds the state machine and its timers (open, then half-open after the recovery time). It
 * counts failures as a percentage and lets every request through while half-open, so this wrapper
 * counts failures in the window itself and decides the half-open probe: the call runs directly
 * (no per-request work in opossum on the hot path), a success of the probe closes the breaker, a
 * failure re-opens it, and anything else (the client went away) releases the probe unjudged. A
 * streamed call is settled when its stream ends (`admit`), not when its headers arrive.
 */
export class ProviderBreaker {
  private readonly breaker: CircuitBreaker<[], unknown>;
  private failures: number[] = [];
  private probeInFlight = false;
  private openedAt = 0;
  private lastFailure: number | null = null;
  private lastSuccess: number | null = null;

  constructor(
    readonly provider: string,
    readonly options: BreakerOptions = DEFAULT_BREAKER_OPTIONS,
    onStateChange?: (provider: string, state: BreakerState) => void,
  ) {
    // Never fired: opening and closing are decided here, opossum keeps the state and the timer.
    this.breaker = new CircuitBreaker(() => Promise.resolve(), {
      name: provider,
      timeout: false,
      resetTimeout: options.recoveryTimeoutMs,
      volumeThreshold: Number.MAX_SAFE_INTEGER,
      rollingCountTimeout: options.failureWindowMs,
    });
    this.breaker.on('open', () => {
      this.openedAt = Date.now();
      onStateChange?.(provider, 'open');
    });
    this.breaker.on('halfOpen', () => onStateChange?.(provider, 'half_open'));
    this.breaker.on('close', () => {
      this.failures = [];
      onStateChange?.(provider, 'closed');
    });
  }

  get state(): BreakerState {
    if (this.breaker.opened) return 'open';
    if (this.breaker.halfOpen) return 'half_open';
    return 'closed';
  }

  /**
   * Lets one call through, or throws BreakerOpenError when refused (open, or half-open with its probe
   * in flight). The call is settled once its outcome is known: a streamed answer at the end of its
   * stream, so a half-open breaker's probe is judged by the whole answer, not by its first bytes,
   * and every other request is refused until then.
   */
  admit(): BreakerCall {
    const state = this.state;
    if (state === 'open' || (state === 'half_open' && this.probeInFlight)) {
      throw new BreakerOpenError(this.provider, this.retryAfterSeconds() ?? 1);
    }
    const probe = state === 'half_open';
    if (probe) this.probeInFlight = true;
    return new BreakerCall((outcome) => this.conclude(probe, outcome));
  }

  /**
   * Runs `action` through the breaker; throws BreakerOpenError without calling it when refused. Its
   * result is a success, an UpstreamFailure a failure, anything else (4xx, the client gone) neither.
   */
  async run<T>(action: () => Promise<T>): Promise<T> {
    const call = this.admit();
    try {
      const result = await action();
      call.settle('success');
      return result;
    } catch (error) {
      call.settle(outcomeOf(error));
      throw error;
    }
  }

  record(): BreakerRecord {
    const now = Date.now();
    return {
      provider: this.provider,
      state: this.state,
      failure_count: this.failures.filter((at) => at > now - this.options.failureWindowMs).length,
      failure_threshold: this.options.failureThreshold,
      failure_window_seconds: this.options.failureWindowMs / 1000,
      recovery_timeout_seconds: this.options.recoveryTimeoutMs / 1000,
      last_failure_time: this.lastFailure,
      last_success_time: this.lastSuccess,
      retry_after_seconds: this.state === 'open' ? this.retryAfterSeconds() : null,
    };
  }

  shutdown(): void {
    this.breaker.shutdown();
  }

  private retryAfterSeconds(): number | null {
    if (this.state !== 'open') return this.state === 'half_open' ? 1 : null;
    // At least 1: past the recovery time but before the half-open timer has run, the breaker still
    // refuses, and `Retry-After: 0` would invite an immediate retry into the same refusal.
    const remainingMs = this.openedAt + this.options.recoveryTimeoutMs - Date.now();
    return Math.max(1, Math.ceil(remainingMs / 1000));
  }

  /**
   * An admitted call's outcome. The probe's success closes the breaker and its failure re-opens it;
   * an unjudged probe (the client went away) leaves it half-open, and the next call is the probe.
   */
  private conclude(probe: boolean, outcome: CallOutcome): void {
    if (outcome === 'success') {
      this.lastSuccess = performance.now() / 1000;
      if (probe) this.breaker.close();
    } else if (outcome === 'failure') {
      this.recordFailure();
      if (probe) this.breaker.open();
    }
    if (probe) this.probeInFlight = false;
  }

  private recordFailure(): void {
    const now = Date.now();
    this.lastFailure = performance.now() / 1000;
    this.failures = this.failures.filter((at) => at > now - this.options.failureWindowMs);
    this.failures.push(now);
    if (this.breaker.closed && this.failures.length >= this.options.failureThreshold) this.breaker.open();
  }
}
