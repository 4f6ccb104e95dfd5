import type { AppConfig } from '@svc/platform';
import { WEBHOOK_DEDUP_WINDOW_MS } from '@svc/events';

/** Injection token of the dispatcher's settings. */
export const DISPATCHER_SETTINGS = Symbol('DISPATCHER_SETTINGS');

/** What the dispatcher reads from the configuration, read once at start. */
export interface DispatcherSettings {
  /** `WEBHOOK_RETRY_BASE_MS`: scales the 1, 2, 4, 8, 16 s schedule. */
  retryBaseMs: number;
  /** `WEBHOOK_TIMEOUT_MS`: a receiver that has not answered by then fails the attempt. */
  timeoutMs: number;
  /** `WEBHOOK_WORKER_LOCK_MS`: how long a job's lock lives without renewal (crash hand-over). */
  lockDurationMs: number;
  /** `OUTBOUND_ALLOW_PRIVATE_NETWORKS`. */
  allowPrivate: boolean;
  /** `WEBHOOK_ALLOW_HTTP`. */
  allowHttp: boolean;
  /** Per organization and event type, only the first event within this window is delivered. */
  dedupWindowMs: number;
  /** `ANOMALY_CHECK_INTERVAL_MS`; 0 = the detector is off. */
  anomalyIntervalMs: number;
  /**
   * `WEBHOOK_SWEEP_INTERVAL_MS`: how often, and past how long overdue, deliveries whose queued retry
   * was lost are put back on the queue (DeliveryRetrySweep); 0 = no sweep.
   */
  sweepIntervalMs: number;
}

export function dispatcherSettings(config: AppConfig): DispatcherSettings {
  return {
    retryBaseMs: config.WEBHOOK_RETRY_BASE_MS,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    lockDurationMs: config.WEBHOOK_WORKER_LOCK_MS,
    allowPrivate: config.OUTBOUND_ALLOW_PRIVATE_NETWORKS,
    allowHttp: config.WEBHOOK_ALLOW_HTTP,
    dedupWindowMs: WEBHOOK_DEDUP_WINDOW_MS,
    anomalyIntervalMs: config.ANOMALY_CHECK_INTERVAL_MS,
    sweepIntervalMs: config.WEBHOOK_SWEEP_INTERVAL_MS,
  };
}
