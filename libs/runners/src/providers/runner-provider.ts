import type { ToolProfile } from '@svc/domain';

/**
 * The one interface every sandbox provider implements (DECISIONS.md "Runner providers"): `fake`
 * and `local` today, vendor providers later. The control plane owns state, audit and policy; a
 * provider only does the work and throws `ProviderError` when its sandbox fails.
 */
export interface RunnerRef {
  orgId: string;
  runnerId: string;
  toolProfile: ToolProfile;
  imageRef: string | null;
  runtimeVersion: string | null;
}

export interface SessionRef extends RunnerRef {
  sessionId: string;
}

export type OutputStream = 'stdout' | 'stderr';

export interface ExecRequest extends SessionRef {
  commandId: string;
  argv: string[];
  timeoutSeconds: number;
  /** Output as it arrives (already within the cap), for the runner stream. */
  onOutput?: (stream: OutputStream, text: string) => void;
}

export interface ExecResult {
  /** Null when the command did not exit by itself (killed at its timeout). */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** True when stdout or stderr went over the cap and was cut (with a marker). */
  truncated: boolean;
}

export interface ProviderAvailability {
  available: boolean;
  detail: string;
}

export interface RunnerProvider {
  readonly type: string;
  /** Whether the provider can work right now (health, prerequisites). Never throws. */
  availability(): Promise<ProviderAvailability>;
  provision(runner: RunnerRef): Promise<void>;
  startSession(session: SessionRef): Promise<void>;
  exec(request: ExecRequest): Promise<ExecResult>;
  /**
   * The directory the session's commands run in, when the provider has one on this host (the
   * protected-path check resolves relative arguments against it); null otherwise.
   */
  workingDirectory?(session: SessionRef): Promise<string | null>;
  /** Ends a session's work and frees what it held; safe to call twice or after a restart. */
  stopSession(session: SessionRef): Promise<void>;
  /** Frees everything of the runner; safe to call twice. */
  terminate(runner: RunnerRef): Promise<void>;
}

/** The sandbox itself failed (not the command): the runner becomes `failed` and the client gets 502 `provider_error`. */
export class ProviderError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ProviderError';
  }
}

/**
 * The session's sandbox is gone (stopped, expired or terminated while the request was under way,
 * or held by another replica): the command did not run. The client gets 409 `invalid_state`; the
 * runner is not failed for it.
 */
export class SessionGoneError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SessionGoneError';
  }
}

/** Ends the text of one stream cut at the cap. */
export function truncationMarker(droppedBytes: number, capBytes: number): string {
  return `\n[output truncated: ${droppedBytes} more bytes over the ${capBytes}-byte cap]\n`;
}
