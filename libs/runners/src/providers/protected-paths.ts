import { readdir, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { argumentPaths } from './tool-profiles';

/** Characters that end a path inside a longer argument (`sh -c 'cat /x'`, `open("/x")`, `if=/x`). */
const PATH_DELIMITERS = /[\s=:,;'"`()<>|&$[\]{}]+/;

/**
 * Paths no runner command may name, whatever its tool profile (docs/runners.md "Protected paths"):
 * the service's data directory (`DATA_DIR`: instance secrets, the embedded document store) and the
 * `/proc` entries of the service's own process and threads (its environment, open files and
 * working directory). A command is refused when an argument — whole, an option's value, or a
 * path-looking word inside it — resolves, against the session directory and through symbolic
 * links, into one of them.
 *
 * Defense in depth, not a sandbox: a shell or an interpreter can build a path at run time
 * (`sh -c 'cat $D/x'`) and nothing here sees it. Run the service and its commands as different
 * users, or in bwrap/nsjail/a container, where that matters.
 */
export class ProtectedPaths {
  private constructor(
    private readonly roots: readonly string[],
    private readonly pid: number,
  ) {}

  /** Resolves the directories once (as configured and through symbolic links). */
  static async create(directories: readonly string[], pid: number): Promise<ProtectedPaths> {
    const roots = new Set<string>();
    for (const directory of directories) {
      const absolute = resolve(directory);
      roots.add(absolute);
      roots.add(await realpathOfLongestPrefix(absolute));
    }
    return new ProtectedPaths([...roots], pid);
  }

  /** The protected directories (resolved), for messages and checks of the work directory. */
  directories(): readonly string[] {
    return this.roots;
  }

  /** Whether a path (absolute) is one of the protected directories or inside one. */
  covers(path: string): boolean {
    return this.roots.some((root) => isInside(path, root));
  }

  /**
   * The first argument that reaches a protected path when run in `cwd`, or null. Without a `cwd`
   * (a provider that runs nothing on this host), only absolute paths are checked.
   */
  async find(argv: readonly string[], cwd: string | null): Promise<string | null> {
    const procRoots = await this.procRoots();
    const seen = new Set<string>();
    for (const arg of argv) {
      for (const candidate of candidates(arg)) {
        const path = pathForChild(candidate, cwd);
        if (path === null || seen.has(path)) continue;
        seen.add(path);
        const lexical = resolve(path);
        if (procRoots.some((root) => isInside(lexical, root)) || this.covers(lexical)) return arg;
        // Unnormalized on purpose: `link/..` is the link's parent for the kernel, not the directory holding `link`.
        if (this.covers(await realpathOfLongestPrefix(path))) return arg;
      }
    }
    return null;
  }

  /** `/proc/<pid>` of the service and `/proc/<tid>` of each of its threads (also reachable by tid). */
  private async procRoots(): Promise<string[]> {
    const tids = await readdir(`/proc/${this.pid}/task`).catch(() => [] as string[]);
    return [...new Set([String(this.pid), ...tids])].map((id) => `/proc/${id}`);
  }
}

/** Every word of an argument that could name a path. */
function candidates(arg: string): string[] {
  const words = new Set<string>();
  for (const path of argumentPaths(arg)) {
    words.add(path);
    for (const word of path.split(PATH_DELIMITERS)) {
      if (!word) continue;
      for (const inner of argumentPaths(word)) words.add(inner);
    }
  }
  return [...words].filter((word) => word.length > 0);
}

/**
 * The absolute path a word names for the child process, joined to its directory but not
 * normalized (symbolic links come before `..`), with the child's own `/proc/self` links mapped to
 * what they are for the child (`root` is `/`, `cwd` its directory). Null for the child's other
 * `/proc/self` entries (its own, harmless), and for a relative word when there is no directory.
 */
function pathForChild(word: string, cwd: string | null): string | null {
  if (!isAbsolute(word) && cwd === null) return null;
  const path = isAbsolute(word) ? word : `${cwd}${sep}${word}`;
  const normalized = resolve(path);
  const self = /^\/proc\/(self|thread-self)(\/|$)/.exec(normalized);
  if (!self) return path;
  const rest = normalized.slice(self[0].length).split(sep).filter(Boolean);
  if (rest[0] === 'root') return resolve(sep, ...rest.slice(1));
  if (rest[0] === 'cwd') return cwd === null ? null : resolve(cwd, ...rest.slice(1));
  return null;
}

/** The path with every symbolic link of its longest existing prefix resolved. */
async function realpathOfLongestPrefix(path: string): Promise<string> {
  const missing: string[] = [];
  let current = path;
  for (;;) {
    const real = await realpath(current).catch(() => null);
    if (real !== null) return missing.length ? join(real, ...missing.reverse()) : real;
    const parent = dirname(current);
    if (parent === current) return path;
    missing.push(basename(current));
    current = parent;
  }
}

function isInside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}
