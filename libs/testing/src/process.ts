import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

export const WORKSPACE_ROOT = join(__dirname, '..', '..', '..');

export { freePort } from '@svc/test-redis';

export interface SpawnedProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code (or the signal name) once the process ends. */
  exited: Promise<number | string>;
  /** Waits until the combined output contains `text`. */
  waitFor(text: string | RegExp, timeoutMs: number): Promise<void>;
}

export interface SpawnOptions {
  /** Written to stdin, which then ends. */
  input?: string;
  /** Leaves stdin open for the test to write to (`child.stdin`). */
  interactive?: boolean;
}

/**
 * Runs a node script of the workspace as a real child process, collecting its output. `input`,
 * when given, is written to its stdin, which then ends (otherwise stdin is closed from the start,
 * unless `interactive`).
 */
export function spawnNode(args: string[], env: Record<string, string>, options: SpawnOptions = {}): SpawnedProcess {
  return spawnCommand(process.execPath, args, env, options);
}

/** `spawnNode` for any command of the machine (e.g. `script`, to give a child a pseudo-terminal). */
export function spawnCommand(command: string, args: string[], env: Record<string, string>, options: SpawnOptions = {}): SpawnedProcess {
  const child = spawn(command, args, {
    cwd: WORKSPACE_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: [options.input === undefined && !options.interactive ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  // A child that exits without reading its stdin must not fail the test with EPIPE.
  child.stdin?.on('error', () => undefined);
  if (options.input !== undefined) child.stdin?.end(options.input);
  let output = '';
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  const waitFor = (text: string | RegExp, timeoutMs: number) =>
    new Promise<void>((resolve, reject) => {
      const matches = () => (typeof text === 'string' ? output.includes(text) : text.test(output));
      if (matches()) return resolve();
      const timer = setTimeout(() => {
        listeners.delete(check);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${String(text)}; output so far:\n${output}`));
      }, timeoutMs);
      const check = () => {
        if (!matches()) return;
        clearTimeout(timer);
        listeners.delete(check);
        resolve();
      };
      listeners.add(check);
      void exited.then(() => {
        if (listeners.has(check)) {
          clearTimeout(timer);
          listeners.delete(check);
          reject(new Error(`process exited before printing ${String(text)}; output:\n${output}`));
        }
      });
    });
  return { child, output: () => output, exited, waitFor };
}
