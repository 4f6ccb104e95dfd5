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
  /** `RUNNER_LOCAL_ENABLED` (default false): the `local` provider runs commands on this host. */
  localEnabled: boolean;
  /** `DATA_DIR`: instance secrets and the embedded store; no runner command may name a path in it. */
  dataDir: string;
  workDir: string;
  outputCapBytes: number;
  sweepIntervalMs: number;
  heartbeatMs: number;
}

export function runnerSettings(config: AppConfig): RunnerSettings {
  return {
    enabled: config.RUNNERS_ENABLED,
    localEnabled: config.RUNNER_LOCAL_ENABLED,
    dataDir: config.DATA_DIR,
    workDir: config.RUNNER_WORK_DIR ?? tmpdir(),
    outputCapBytes: config.RUNNER_OUTPUT_CAP_BYTES,
    sweepIntervalMs: config.RUNNER_SWEEP_INTERVAL_MS,
    heartbeatMs: config.RUNNER_STREAM_HEARTBEAT_MS,
  };
}
