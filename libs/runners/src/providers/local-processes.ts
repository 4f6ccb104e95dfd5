import type { ChildProcess } from 'node:child_process';
import { readdir, readlink, realpath } from 'node:fs/promises';
import { sep } from 'node:path';

/** How many times a stop looks again for processes in a session directory (a process may fork while it is killed). */
const SWEEP_ROUNDS = 5;
const DELETED_SUFFIX = ' (deleted)';

/** Kills a command's whole process group (it is its group's leader); nothing to do when it is gone. */
export function killGroup(child: ChildProcess): void {
  if (child.pid !== undefined) killPid(-child.pid);
}

function killPid(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone, or not ours.
  }
}

/**
 * Processes of this user whose working directory is one of `dirs` or inside one (read from
 * `/proc/<pid>/cwd`; none where there is no `/proc`). This finds what a command left behind in
 * another process group or session (`setsid`, a double fork) as long as it stayed in the directory.
 */
export async function processesIn(dirs: readonly string[]): Promise<number[]> {
  if (!dirs.length) return [];
  const roots = await Promise.all(dirs.map((dir) => realpath(dir).catch(() => dir)));
  const names = await readdir('/proc').catch(() => [] as string[]);
  const found = await Promise.all(
    names
      .filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid)
      .map(async (name) => {
        const target = await readlink(`/proc/${name}/cwd`).catch(() => null);
        if (target === null) return null;
        const cwd = target.endsWith(DELETED_SUFFIX) ? target.slice(0, -DELETED_SUFFIX.length) : target;
        return roots.some((root) => cwd === root || cwd.startsWith(root + sep)) ? Number(name) : null;
      }),
  );
  return found.filter((pid): pid is number => pid !== null);
}

/**
 * Kills every process found in the directories, with its process group when it leads one, and
 * looks again until none is left (or after a few rounds). Returns how many were killed.
 */
export async function killProcessesIn(dirs: readonly string[]): Promise<number> {
  let killed = 0;
  for (let round = 0; round < SWEEP_ROUNDS; round += 1) {
    const pids = await processesIn(dirs);
    if (!pids.length) break;
    for (const pid of pids) {
      killPid(-pid);
      killPid(pid);
    }
    killed += pids.length;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return killed;
}
