import type { ToolProfile } from '@svc/domain';

/**
 * What each `tool_profile` lets a session run (checked by the control plane before any provider
 * sees the command, so the `fake` and `local` providers refuse alike). A refusal is a 403
 * `policy_denied` with a `policy_denied` audit event. This is a policy, not an isolation boundary:
 * the `local` provider is for development and tests (docs/runners.md).
 *
 * - `locked`: an allowlist of file and text utilities with no network ability and no way to run
 *   another program (no shells, interpreters, `env`, `xargs`, `find`, `sed`, `awk`, `timeout`, `nice`,
 *   `split` (`--filter`); options that run a program or read file names from a file are refused:
 *   `LOCKED_FORBIDDEN_OPTIONS`); the command is a bare name (resolved on the clean PATH), and
 *   arguments stay inside the session directory (no absolute paths except a few devices, no `..`,
 *   no `~`), also a value glued to an option (`-f/etc/x`, `--file=/etc/x`).
 * - `web_automation`: the locked allowlist plus HTTP clients, interpreters and browsers (`curl`,
 *   `wget`, `node`, `python3`, `jq`, `git`, ...), still a bare name; never remote shells or raw
 *   sockets (`ssh`, `scp`, `sftp`, `telnet`, `ftp`, `nc`, `socat`, `rsync`, `nmap`), never a
 *   listening server (`python -m http.server`).
 * - `full_vm_tools`: any program, by name or path, except privilege escalation (`sudo`, `su`, `doas`, `pkexec`).
 */
export type PolicyRule =
  | 'not_allowlisted'
  | 'network_tool'
  | 'path_not_allowed'
  | 'argument_outside_workdir'
  | 'forbidden_argument'
  | 'privilege_escalation'
  | 'protected_path';

export type PolicyDecision = { allowed: true } | { allowed: false; rule: PolicyRule; reason: string };

export const LOCKED_ALLOWLIST: ReadonlySet<string> = new Set([
  'echo', 'printf', 'cat', 'tac', 'ls', 'pwd', 'true', 'false', 'sleep', 'head', 'tail', 'wc', 'sort', 'uniq',
  'cut', 'tr', 'grep', 'egrep', 'fgrep', 'seq', 'date', 'mkdir', 'rmdir', 'touch', 'cp', 'mv', 'rm', 'chmod',
  'basename', 'dirname', 'realpath', 'readlink', 'uname', 'whoami', 'id', 'expr', 'test', 'yes', 'base64',
  'sha256sum', 'sha1sum', 'md5sum', 'cksum', 'diff', 'cmp', 'tee', 'stat', 'du', 'od', 'rev', 'fold', 'fmt',
  'nl', 'paste', 'join', 'comm', 'shuf', 'numfmt', 'factor', 'truncate',
]);

/**
 * Options of allowlisted tools that `locked` refuses: they run another program (`sort
 * --compress-program`) or read the names of the files to open from a file, which would let a
 * command read outside the session directory (`--files0-from`). GNU tools accept any unambiguous
 * prefix of a long option (`--compress`, `--files0`), so every prefix is refused.
 */
export const LOCKED_FORBIDDEN_OPTIONS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  sort: ['--compress-program', '--files0-from'],
  wc: ['--files0-from'],
  du: ['--files0-from'],
});

export const WEB_AUTOMATION_EXTRAS: ReadonlySet<string> = new Set([
  'curl', 'wget', 'node', 'python', 'python3', 'jq', 'sed', 'awk', 'find', 'xargs', 'git', 'npx', 'npm',
  'playwright', 'chromium', 'chromium-browser', 'google-chrome', 'firefox',
]);

/** Remote shells, raw sockets, file transfer and scanners: refused by `locked` and `web_automation`. */
export const NETWORK_TOOLS: ReadonlySet<string> = new Set([
  'curl', 'wget', 'nc', 'ncat', 'netcat', 'socat', 'ssh', 'scp', 'sftp', 'ftp', 'tftp', 'lftp', 'telnet', 'rsync',
  'nmap', 'ping', 'ping6', 'traceroute', 'dig', 'nslookup', 'host', 'whois', 'aria2c', 'http', 'xh', 'openssl',
]);
/** Network tools `web_automation` still refuses (HTTP clients are what it is for). */
const WEB_AUTOMATION_DENIED: ReadonlySet<string> = new Set([...NETWORK_TOOLS].filter((tool) => tool !== 'curl' && tool !== 'wget'));

export const PRIVILEGE_ESCALATION: ReadonlySet<string> = new Set(['sudo', 'su', 'doas', 'pkexec']);

/** Devices `locked` arguments may name although they are absolute paths. */
const ALLOWED_DEVICES: ReadonlySet<string> = new Set(['/dev/null', '/dev/zero', '/dev/urandom', '/dev/random']);
/** Python modules that start a server. */
const SERVER_MODULES = /^(http\.server|SimpleHTTPServer|smtpd|aiosmtpd|pyftpdlib|socketserver)$/;

const deny = (rule: PolicyRule, reason: string): PolicyDecision => ({ allowed: false, rule, reason });

function commandName(command: string): string {
  const base = command.split('/').pop() ?? command;
  return base.toLowerCase();
}

/** The decision for one argv under a profile. */
export function checkToolPolicy(profile: ToolProfile, argv: readonly string[]): PolicyDecision {
  const [command, ...args] = argv;
  if (!command) return deny('not_allowlisted', 'the command is empty');
  const name = commandName(command);
  if (PRIVILEGE_ESCALATION.has(name)) return deny('privilege_escalation', `${name} (privilege escalation) is never allowed`);
  if (profile === 'full_vm_tools') return { allowed: true };

  if (command.includes('/')) return deny('path_not_allowed', `the ${profile} profile runs commands by name only, not by path (${command})`);
  if (profile === 'locked') {
    if (NETWORK_TOOLS.has(name)) return deny('network_tool', `${name} is a network tool`);
    if (!LOCKED_ALLOWLIST.has(name)) return deny('not_allowlisted', `${name} is not on the locked allowlist`);
    const forbidden = forbiddenOption(name, args);
    if (forbidden) return deny('forbidden_argument', `${name} ${forbidden} runs another program or reads file names from a file`);
    const outside = args.find(escapesWorkdir);
    if (outside !== undefined) return deny('argument_outside_workdir', `the argument ${outside} reaches outside the session directory`);
    return { allowed: true };
  }
  // web_automation
  if (WEB_AUTOMATION_DENIED.has(name)) return deny('network_tool', `${name} is a remote-shell, socket or transfer tool`);
  if (!LOCKED_ALLOWLIST.has(name) && !WEB_AUTOMATION_EXTRAS.has(name)) {
    return deny('not_allowlisted', `${name} is not on the web_automation allowlist`);
  }
  if (name.startsWith('python')) {
    const moduleIndex = args.findIndex((arg) => arg.startsWith('-m'));
    const module = moduleIndex < 0 ? undefined : args[moduleIndex] === '-m' ? args[moduleIndex + 1] : args[moduleIndex].slice(2);
    if (module && SERVER_MODULES.test(module)) return deny('forbidden_argument', `python -m ${module} starts a server`);
  }
  return { allowed: true };
}

/** The forbidden option of `LOCKED_FORBIDDEN_OPTIONS` an argument spells, as GNU reads it (any unambiguous prefix, `=value` or not). */
function forbiddenOption(name: string, args: readonly string[]): string | undefined {
  const options = LOCKED_FORBIDDEN_OPTIONS[name];
  if (!options) return undefined;
  for (const arg of args) {
    if (!arg.startsWith('--') || arg.length < 3) continue;
    const spelled = arg.includes('=') ? arg.slice(0, arg.indexOf('=')) : arg;
    const option = options.find((candidate) => candidate.startsWith(spelled));
    if (option) return option;
  }
  return undefined;
}

/**
 * The paths an argument may name: the argument itself and, for an option, its value — after `=`
 * (`--file=/etc/x`) or glued to the option letters (`-f/etc/x`, `-o/tmp/x`, `-I../x`), read from the
 * first `/` or `..` on. Over-reads on purpose: a glued value with a slash is a path to this check
 * (`-d2024/01/01` is refused; pass such a value as its own argument).
 */
export function argumentPaths(arg: string): string[] {
  const paths = [arg];
  if (!arg.startsWith('-') || arg === '-' || arg === '--') return paths;
  if (arg.includes('=')) paths.push(arg.slice(arg.indexOf('=') + 1));
  const glued = [arg.indexOf('/'), arg.indexOf('..')].filter((at) => at > 0);
  if (glued.length) paths.push(arg.slice(Math.min(...glued)));
  return paths;
}

/** Whether an argument names a path outside the working directory (see `argumentPaths`). */
function escapesWorkdir(arg: string): boolean {
  return argumentPaths(arg).some((value) => {
    if (value.startsWith('~')) return true;
    if (/(^|\/)\.\.(\/|$)/.test(value)) return true;
    return value.startsWith('/') && !ALLOWED_DEVICES.has(value);
  });
}
