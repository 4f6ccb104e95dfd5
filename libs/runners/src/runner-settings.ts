import { tmpdir } from 'node:os';
import type { AppConfig } from '@svc/platform';

/** Injection token of RunnerSettings. */
export const RUNNER_SETTINGS = Symbol('RUNNER_SETTINGS');
/** Injection token of the RunnerClock (tests of the sweeper pass their own). */
export const RUNNER_CLOCK = Symbol('RUNNER_CLOCK');

export interface RunnerClock {
  now(): Date;
}

export const systemClock: RunnerClock = { now: () => new Date() };

/** What the runner control plane reads from the configuration, resolved once. */
export interface RunnerSettings {
  /** `RUNNERS_ENABLED`: the feature flag. */
  enabled: boolean;
  /** `RUNNER_LOCAL_ENABLED`, defaulting to on outside production. */
  localEnabled: boolean;
  workDir: string;
  outputCapBytes: number;
  sweepIntervalMs: number;
  heartbeatMs: number;
}

export function runnerSettings(config: AppConfig): RunnerSettings {
  return {
    enabled: config.RUNNERS_ENABLED,
    localEnabled: config.RUNNER_LOCAL_ENABLED ?? config.NODE_ENV !== 'production',
    workDir: config.RUNNER_WORK_DIR ?? tmpdir(),
    outputCapBytes: config.RUNNER_OUTPUT_CAP_BYTES,
    sweepIntervalMs: config.RUNNER_SWEEP_INTERVAL_MS,
    heartbeatMs: config.RUNNER_STREAM_HEARTBEAT_MS,
  };
}
