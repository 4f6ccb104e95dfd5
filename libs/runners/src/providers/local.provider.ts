import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, realpath, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve as resolvePath } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { killGroup, killProcessesIn } from './local-processes';
import type { ProtectedPaths } from './protected-paths';
import {
  ExecRequest,
  ExecResult,
  OutputStream,
  ProviderAvailability,
  ProviderError,
  RunnerProvider,
  RunnerRef,
  SessionGoneError,
  SessionRef,
  truncationMarker,
} from './runner-provider';

export interface LocalProviderOptions {
  /** Where session directories are created (`RUNNER_WORK_DIR`, default the OS temp directory). */
  workDir: string;
  /** Bytes kept per stream and command (`RUNNER_OUTPUT_CAP_BYTES`). */
  outputCapBytes: number;
  /** Paths no command may touch (DATA_DIR): the provider is unavailable when `workDir` lies inside one. */
  protectedPaths?: ProtectedPaths;
}

/** The only variable a command sees: a fixed system PATH, plus the directory of this Node binary. */
export const LOCAL_PATH = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin', dirname(process.execPath)]
  .filter((dir, i, all) => all.indexOf(dir) === i)
  .join(':');

/** After a command exits, how long its streams may stay open (held by a leftover process) before they are cut. */
const STREAM_GRACE_MS = 500;
/** Stopped sessions remembered so that a racing exec cannot start in them (the oldest are forgotten past this). */
const ENDED_SESSIONS_KEPT = 10_000;

interface Running {
  child: ChildProcess;
  runnerId: string;
  sessionId: string;
}

/**
 * Commands run as child processes of this service (DECISIONS.md "Runner providers"): argv is
 * spawned without a shell, in the session's throwaway directory (`<workDir>/svc-runner-<session>-*`,
 * created at session start, removed at stop, expiry or terminate; an exec whose directory is gone
 * is refused with `SessionGoneError`, never recreated), with an environment of PATH only, in its
 * own process group (killed whole at `timeout_seconds`, when the command exits so that nothing it
 * left in the background survives it, and at stop and terminate), with stdout and stderr cut at
 * the cap. At stop, processes that left the group (`setsid`) but still sit in the session
 * directory are killed too. Not an isolation boundary: see docs/runners.md.
 */
export class LocalRunnerProvider implements RunnerProvider {
  readonly type = 'local';
  private readonly running = new Set<Running>();
  private readonly ended = new Set<string>();

  constructor(private readonly options: LocalProviderOptions) {}

  async availability(): Promise<ProviderAvailability> {
    const { protectedPaths, workDir } = this.options;
    const realWorkDir = await realpath(workDir).catch(() => resolvePath(workDir));
    if (protectedPaths && (protectedPaths.covers(resolvePath(workDir)) || protectedPaths.covers(realWorkDir))) {
      return { available: false, detail: `${workDir} (RUNNER_WORK_DIR) is inside DATA_DIR, where no runner command may reach` };
    }
    try {
      const probe = await mkdtemp(join(this.options.workDir, 'svc-runner-probe-'));
      await rm(probe, { recursive: true, force: true });
      return { available: true, detail: `session directories under ${this.options.workDir}` };
    } catch (error) {
      return { available: false, detail: `${this.options.workDir} is not writable: ${(error as Error).message}` };
    }
  }

  async provision(): Promise<void> {
    const { available, detail } = await this.availability();
    if (!available) throw new ProviderError(detail);
  }

  async startSession(session: SessionRef): Promise<void> {
    if ((await this.findSessionDirs(session.sessionId)).length) return;
    try {
      await mkdtemp(join(this.options.workDir, this.prefix(session.sessionId)));
    } catch (error) {
      throw new ProviderError(`cannot create the session directory: ${(error as Error).message}`, { cause: error });
    }
  }

  async workingDirectory(session: SessionRef): Promise<string | null> {
    return (await this.findSessionDirs(session.sessionId))[0] ?? null;
  }

  async exec(request: ExecRequest): Promise<ExecResult> {
    const cwd = (await this.findSessionDirs(request.sessionId))[0];
    // Checked after the last await, so the spawn below cannot interleave with a stop's kill pass.
    if (cwd === undefined || this.ended.has(request.sessionId)) throw sessionGone(request.sessionId);
    const [command, ...args] = request.argv;
    return new Promise<ExecResult>((resolve, reject) => {
      const out = new CappedOutput('stdout', this.options.outputCapBytes, request.onOutput);
      const err = new CappedOutput('stderr', this.options.outputCapBytes, request.onOutput);
      let timedOut = false;
      let spawnError: NodeJS.ErrnoException | null = null;
      let exitCode: number | null = null;
      const child = spawn(command, args, { cwd, env: { PATH: LOCAL_PATH }, shell: false, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      const entry: Running = { child, runnerId: request.runnerId, sessionId: request.sessionId };
      this.running.add(entry);
      child.stdout?.on('data', (chunk: Buffer) => out.write(chunk));
      child.stderr?.on('data', (chunk: Buffer) => err.write(chunk));
      const timer = setTimeout(() => {
        timedOut = true;
        killGroup(child);
      }, request.timeoutSeconds * 1000);
      let grace: NodeJS.Timeout | undefined;
      child.on('error', (error: NodeJS.ErrnoException) => {
        spawnError = error;
      });
      child.on('exit', (code) => {
        exitCode = code;
        killGroup(child);
        grace = setTimeout(() => {
          child.stdout?.destroy();
          child.stderr?.destroy();
        }, STREAM_GRACE_MS);
      });
      child.on('close', () => {
        clearTimeout(timer);
        clearTimeout(grace);
        this.running.delete(entry);
        if (spawnError) {
          // spawn reports a working directory removed under it (a stop racing this exec) as ENOENT too.
          if (spawnError.code === 'ENOENT' && !existsSync(cwd)) {
            reject(sessionGone(request.sessionId));
            return;
          }
          const notFound = spawnError.code === 'ENOENT';
          resolve({
            exitCode: notFound ? 127 : 126,
            stdout: '',
            stderr: notFound ? `${command}: command not found\n` : `${command}: cannot run (${spawnError.code ?? spawnError.message})\n`,
            timedOut: false,
            truncated: false,
          });
          return;
        }
        if (timedOut) err.note(`\n[timed out after ${request.timeoutSeconds}s: the command was killed]\n`);
        resolve({ exitCode: timedOut ? null : exitCode, stdout: out.text(), stderr: err.text(), timedOut, truncated: out.truncated || err.truncated });
      });
    });
  }

  async stopSession(session: SessionRef): Promise<void> {
    this.markEnded(session.sessionId);
    for (const entry of [...this.running]) if (entry.sessionId === session.sessionId) killGroup(entry.child);
    const dirs = await this.findSessionDirs(session.sessionId);
    await killProcessesIn(dirs);
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  }

  async terminate(runner: RunnerRef): Promise<void> {
    for (const entry of [...this.running]) if (entry.runnerId === runner.runnerId) killGroup(entry.child);
  }

  /** How many commands are running now (tests, health). */
  runningCount(): number {
    return this.running.size;
  }

  private prefix(sessionId: string): string {
    return `svc-runner-${sessionId}-`;
  }

  async findSessionDirs(sessionId: string): Promise<string[]> {
    const names = await readdir(this.options.workDir).catch(() => [] as string[]);
    const dirs = names.filter((name) => name.startsWith(this.prefix(sessionId))).map((name) => join(this.options.workDir, name));
    const checked = await Promise.all(dirs.map(async (dir) => ((await stat(dir).catch(() => null))?.isDirectory() ? dir : null)));
    return checked.filter((dir): dir is string => dir !== null);
  }

  private markEnded(sessionId: string): void {
    this.ended.add(sessionId);
    if (this.ended.size > ENDED_SESSIONS_KEPT) this.ended.delete(this.ended.values().next().value as string);
  }
}

function sessionGone(sessionId: string): SessionGoneError {
  return new SessionGoneError(`Session ${sessionId} has no working directory on this host: it was stopped, expired or terminated, or runs on another replica`);
}

/** One output stream kept up to the cap; what is over it is counted and replaced by a marker. */
class CappedOutput {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  private dropped = 0;
  private readonly decoder = new StringDecoder('utf8');
  private notes = '';

  constructor(
    private readonly stream: OutputStream,
    private readonly capBytes: number,
    private readonly onOutput?: (stream: OutputStream, text: string) => void,
  ) {}

  get truncated(): boolean {
    return this.dropped > 0;
  }

  write(chunk: Buffer): void {
    const room = this.capBytes - this.kept;
    const part = room >= chunk.length ? chunk : chunk.subarray(0, Math.max(0, room));
    this.dropped += chunk.length - part.length;
    if (part.length === 0) return;
    this.chunks.push(part);
    this.kept += part.length;
    const text = this.decoder.write(part);
    if (text) this.onOutput?.(this.stream, text);
  }

  note(text: string): void {
    this.notes += text;
  }

  text(): string {
    const body = Buffer.concat(this.chunks, this.kept).toString('utf8');
    return body + (this.dropped > 0 ? truncationMarker(this.dropped, this.capBytes) : '') + this.notes;
  }
}
