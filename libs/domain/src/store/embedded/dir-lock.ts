import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

export const LOCK_FILE = 'store.lock';

interface LockContent {
  pid: number;
  hostname: string;
  started_at: string;
  /** Tells this holder's lock from a later one, so release never removes someone else's. */
  token: string;
}

/** Directories whose lock this process holds, so a second open in the same process is refused too. */
const heldHere = new Set<string>();

export class DataDirLockedError extends Error {
  constructor(
    readonly directory: string,
    readonly holder: Partial<LockContent> | null,
  ) {
    const who = holder?.pid
      ? `process ${holder.pid}${holder.hostname && holder.hostname !== hostname() ? ` on ${holder.hostname}` : ''}${holder.started_at ? ` (since ${holder.started_at})` : ''}`
      : 'another process';
    super(
      `DATA_DIR ${directory} is in use by ${who}: the embedded document store allows one process per directory. ` +
        'Stop that process, give this one a different DATA_DIR, or run every process on shared stores ' +
        '(REDIS_URL and MONGODB_URI). A lock left by a process that ended is taken over by itself; only if that ' +
        `process id now belongs to an unrelated program, delete ${join(directory, LOCK_FILE)}.`,
    );
    this.name = 'DataDirLockedError';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readLock(path: string): { text: string; content: Partial<LockContent> | null } | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    return { text, content: JSON.parse(text) as Partial<LockContent> };
  } catch {
    return { text, content: null };
  }
}

/**
 * A lock that is not held: its process is gone (a crash or SIGKILL leaves the file behind), or it
 * names this process's own pid without this process holding it (a restarted container, where the
 * service is PID 1 again). A lock being written right now (empty or torn) counts as held.
 */
function isStale(content: Partial<LockContent> | null, directory: string): boolean {
  if (!content || typeof content.pid !== 'number') return false;
  if (content.hostname !== undefined && content.hostname !== hostname()) return false;
  if (content.pid === process.pid) return !heldHere.has(directory);
  return !isAlive(content.pid);
}

export interface DataDirLock {
  readonly path: string;
  release(): void;
}

/**
 * Takes the exclusive lock of an embedded store directory: `<dir>/store.lock`, created with O_EXCL
 * and holding this process's pid. A stale lock is taken over; a live one throws DataDirLockedError
 * naming its process and the ways out.
 */
export function lockDataDir(directory: string): DataDirLock {
  const path = join(directory, LOCK_FILE);
  if (heldHere.has(directory)) throw new DataDirLockedError(directory, { pid: process.pid, hostname: hostname() });
  const content: LockContent = { pid: process.pid, hostname: hostname(), started_at: new Date().toISOString(), token: randomBytes(8).toString('hex') };
  const text = `${JSON.stringify(content)}\n`;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      try {
        writeSync(fd, text);
      } finally {
        closeSync(fd);
      }
      heldHere.add(directory);
      return { path, release: () => release(directory, path, text) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const existing = readLock(path);
    if (existing && !isStale(existing.content, directory)) throw new DataDirLockedError(directory, existing.content);
    // Stale: remove it, unless another process replaced it since we read it, then try again.
    const again = readLock(path);
    if (again && existing && again.text === existing.text) unlinkSync(path);
  }
  throw new DataDirLockedError(directory, readLock(path)?.content ?? null);
}

function release(directory: string, path: string, text: string): void {
  if (!heldHere.delete(directory)) return;
  try {
    if (readFileSync(path, 'utf8') === text) unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
