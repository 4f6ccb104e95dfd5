import { ExecRequest, ExecResult, ProviderAvailability, ProviderError, RunnerProvider, RunnerRef, SessionRef, truncationMarker } from './runner-provider';

/** `image_ref` that makes the fake provider fail provisioning (tests of the failure path). */
export const FAKE_PROVISION_ERROR_IMAGE = 'fake://provision-error';
/** `image_ref` that makes the fake provider fail every session start of the runner. */
export const FAKE_START_ERROR_IMAGE = 'fake://start-error';
/** `image_ref` that makes the fake provider fail every session stop of the runner. */
export const FAKE_STOP_ERROR_IMAGE = 'fake://stop-error';
/** `image_ref` that makes the fake provider fail when the runner is terminated. */
export const FAKE_TERMINATE_ERROR_IMAGE = 'fake://terminate-error';
/** argv[0] that makes the fake provider's sandbox fail during exec. */
export const FAKE_EXEC_PROVIDER_ERROR = 'fake:provider-error';
/** argv[0] that makes the fake command exit with the code in argv[1]. */
export const FAKE_EXIT = 'fake:exit';

/**
 * Deterministic and in process: exec prints its argv joined by spaces and a newline on stdout and
 * exits 0. Test hooks (docs/runners.md): the runner's `image_ref` `fake://provision-error`,
 * `fake://start-error`, `fake://stop-error` or `fake://terminate-error` fails that step of the
 * sandbox; argv `['fake:provider-error', ...]` fails the sandbox during exec; `['fake:exit',
 * '<code>', ...]` exits with that code and prints the rest on stderr. No real image is named
 * `fake://...`, and the hooks exist only in this provider.
 */
export class FakeRunnerProvider implements RunnerProvider {
  readonly type = 'fake';
  private readonly sessions = new Set<string>();

  constructor(private readonly outputCapBytes = 64 * 1024) {}

  async availability(): Promise<ProviderAvailability> {
    return { available: true, detail: 'in-process deterministic provider' };
  }

  async provision(runner: RunnerRef): Promise<void> {
    if (runner.imageRef === FAKE_PROVISION_ERROR_IMAGE) throw new ProviderError('fake sandbox could not be provisioned (test hook)');
  }

  async startSession(session: SessionRef): Promise<void> {
    if (session.imageRef === FAKE_START_ERROR_IMAGE) throw new ProviderError('fake sandbox could not start the session (test hook)');
    this.sessions.add(session.sessionId);
  }

  async exec(request: ExecRequest): Promise<ExecResult> {
    const [command, ...args] = request.argv;
    if (command === FAKE_EXEC_PROVIDER_ERROR) throw new ProviderError('fake sandbox crashed during exec (test hook)');
    if (command === FAKE_EXIT) {
      const code = Number.parseInt(args[0] ?? '1', 10);
      const stderr = this.cap(args.slice(1).join(' ') + (args.length > 1 ? '\n' : ''));
      if (stderr.text) request.onOutput?.('stderr', stderr.text);
      return { exitCode: Number.isFinite(code) ? code : 1, stdout: '', stderr: stderr.text, timedOut: false, truncated: stderr.truncated };
    }
    const stdout = this.cap(`${request.argv.join(' ')}\n`);
    request.onOutput?.('stdout', stdout.text);
    return { exitCode: 0, stdout: stdout.text, stderr: '', timedOut: false, truncated: stdout.truncated };
  }

  async stopSession(session: SessionRef): Promise<void> {
    if (session.imageRef === FAKE_STOP_ERROR_IMAGE) throw new ProviderError('fake sandbox could not stop the session (test hook)');
    this.sessions.delete(session.sessionId);
  }

  async terminate(runner: RunnerRef): Promise<void> {
    // Nothing is held per runner.
    if (runner.imageRef === FAKE_TERMINATE_ERROR_IMAGE) throw new ProviderError('fake sandbox could not be released (test hook)');
  }

  private cap(text: string): { text: string; truncated: boolean } {
    const bytes = Buffer.from(text, 'utf8');
    if (bytes.length <= this.outputCapBytes) return { text, truncated: false };
    const kept = bytes.subarray(0, this.outputCapBytes).toString('utf8');
    return { text: kept + truncationMarker(bytes.length - this.outputCapBytes, this.outputCapBytes), truncated: true };
  }
}
