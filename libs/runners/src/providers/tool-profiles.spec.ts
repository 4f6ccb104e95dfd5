import { argumentPaths, checkToolPolicy, LOCKED_ALLOWLIST, LOCKED_FORBIDDEN_OPTIONS, NETWORK_TOOLS } from './tool-profiles';

const allowed = (profile: Parameters<typeof checkToolPolicy>[0], argv: string[]) => checkToolPolicy(profile, argv).allowed;
const rule = (profile: Parameters<typeof checkToolPolicy>[0], argv: string[]) => {
  const decision = checkToolPolicy(profile, argv);
  return decision.allowed ? 'allowed' : decision.rule;
};

describe('tool profiles', () => {
  describe('locked', () => {
    it('allows file and text utilities on the session directory', () => {
      for (const argv of [['echo', 'hi'], ['ls', '-la'], ['cat', 'notes.txt'], ['grep', '-r', 'x', 'src/'], ['seq', '1', '10'], ['head', '-c', '10', '/dev/zero'], ['sort', '-u', 'a.txt']]) {
        expect([argv, allowed('locked', argv)]).toEqual([argv, true]);
      }
    });

    it.each([['curl'], ['wget'], ['nc'], ['ncat'], ['netcat'], ['socat'], ['ssh'], ['scp'], ['sftp'], ['ftp'], ['telnet'], ['rsync'], ['nmap'], ['ping'], ['dig'], ['openssl']])(
      'refuses the network tool %s',
      (tool) => expect(rule('locked', [tool, 'example.com'])).toBe('network_tool'),
    );

    it('has no network tool on its allowlist', () => {
      expect([...LOCKED_ALLOWLIST].filter((tool) => NETWORK_TOOLS.has(tool))).toEqual([]);
    });

    it('refuses shells, interpreters and programs that run other programs', () => {
      for (const tool of ['sh', 'bash', 'zsh', 'python', 'python3', 'node', 'perl', 'ruby', 'awk', 'sed', 'find', 'xargs', 'env', 'busybox', 'nohup', 'timeout']) {
        expect([tool, rule('locked', [tool, 'x'])]).toEqual([tool, 'not_allowlisted']);
      }
      expect(rule('locked', ['python3', '-m', 'http.server'])).toBe('not_allowlisted');
      expect(rule('locked', ['sort', '--compress-program=curl', 'a'])).toBe('forbidden_argument');
    });

    it('has no tool whose options run a program: split --filter runs its value through /bin/sh', () => {
      for (const tool of ['split', 'tar', 'git', 'nice', 'nohup', 'timeout', 'stdbuf', 'watch', 'flock', 'setsid', 'chroot', 'unshare', 'ionice', 'taskset', 'dd', 'ln']) {
        expect([tool, LOCKED_ALLOWLIST.has(tool)]).toEqual([tool, false]);
      }
      for (const argv of [['split', '--filter=sh -c id', 'f'], ['split', '--filter', 'sh', 'f'], ['split', '-b1', '--fil=sh', 'f']]) {
        expect([argv, rule('locked', argv)]).toEqual([argv, 'not_allowlisted']);
      }
    });

    it.each([
      [['sort', '--compress-program=sh', 'a']],
      [['sort', '--compress-program', 'sh', 'a']],
      [['sort', '--compress=sh', 'a']],
      [['sort', '--co', 'sh', 'a']],
      [['sort', '-u', 'a', '--compress-prog=sh']],
      [['sort', '--files0-from=list']],
      [['sort', '--files0-from', 'list']],
      [['sort', '--files0=list']],
      [['wc', '--files0-from=list']],
      [['du', '--files0-from', 'list']],
    ])('refuses %j: an option that runs a program or reads file names from a file, in any GNU spelling', (argv) => {
      expect(rule('locked', argv)).toBe('forbidden_argument');
    });

    it('keeps the options that only look alike', () => {
      for (const argv of [['sort', '--check', 'a'], ['sort', '--field-separator=,', 'a'], ['sort', '-c', 'a'], ['wc', '--lines', 'a'], ['du', '--summarize', '.']]) {
        expect([argv, rule('locked', argv)]).toEqual([argv, 'allowed']);
      }
      expect(Object.keys(LOCKED_FORBIDDEN_OPTIONS).every((tool) => LOCKED_ALLOWLIST.has(tool))).toBe(true);
    });

    it.each([
      [['date', '-f/etc/hostname']],
      [['date', '-f', '/etc/hostname']],
      [['sort', '-o/tmp/x', 'f']],
      [['sort', '-uo/tmp/x', 'f']],
      [['grep', '-f/etc/passwd', 'x', 'notes.txt']],
      [['grep', '-rf/etc/passwd', 'x']],
      [['grep', '-f../../secret', 'x', 'notes.txt']],
      [['cp', '-t/tmp', 'notes.txt']],
      [['cp', '--target-directory=/tmp', 'notes.txt']],
      [['touch', '-r/etc/shadow', 'x']],
      [['sort', '-T..', 'f']],
      [['tail', '--pid=1', '-f/etc/hosts']],
    ])('refuses %j: a path glued to an option leaves the session directory', (argv) => {
      expect(rule('locked', argv)).toBe('argument_outside_workdir');
    });

    it('reads a glued option value as a path from its first / or .. on', () => {
      expect(argumentPaths('-f/etc/hostname')).toEqual(['-f/etc/hostname', '/etc/hostname']);
      expect(argumentPaths('--file=/x')).toEqual(['--file=/x', '/x', '/x']);
      expect(argumentPaths('-I../x')).toEqual(['-I../x', '../x']);
      expect(argumentPaths('notes/a.txt')).toEqual(['notes/a.txt']);
      expect(argumentPaths('-')).toEqual(['-']);
      for (const argv of [['grep', '-fpatterns.txt', 'notes.txt'], ['sort', '-onotes.sorted', 'notes.txt'], ['head', '-n5', 'a'], ['cat', '-'], ['date', '-f/dev/null'], ['ls', '-I..x']]) {
        expect([argv, rule('locked', argv)]).toEqual([argv, 'allowed']);
      }
    });

    it('runs commands by name only and keeps arguments inside the session directory', () => {
      expect(rule('locked', ['/bin/echo', 'x'])).toBe('path_not_allowed');
      expect(rule('locked', ['./echo'])).toBe('path_not_allowed');
      for (const arg of ['/etc/passwd', '../secret', 'a/../../b', '~', '~/.ssh/id_rsa', '--file=/etc/shadow']) {
        expect([arg, rule('locked', ['cat', arg])]).toEqual([arg, 'argument_outside_workdir']);
      }
      expect(rule('locked', ['cat', '/dev/null'])).toBe('allowed');
      expect(rule('locked', ['ls', 'a..b'])).toBe('allowed');
    });

    it('refuses an empty command and privilege escalation', () => {
      expect(rule('locked', [''])).toBe('not_allowlisted');
      expect(rule('locked', ['sudo', 'ls'])).toBe('privilege_escalation');
    });
  });

  describe('web_automation', () => {
    it('allows HTTP clients, interpreters and browsers, by name', () => {
      for (const argv of [['curl', 'https://example.com'], ['wget', '-q', 'https://example.com'], ['node', 'script.js'], ['python3', 'scrape.py'], ['jq', '.'], ['git', 'status'], ['cat', '/etc/hosts']]) {
        expect([argv, allowed('web_automation', argv)]).toEqual([argv, true]);
      }
      expect(rule('web_automation', ['/usr/bin/curl'])).toBe('path_not_allowed');
    });

    it('refuses remote shells, raw sockets, transfers and servers', () => {
      for (const tool of ['ssh', 'scp', 'sftp', 'telnet', 'ftp', 'nc', 'socat', 'rsync', 'nmap']) {
        expect([tool, rule('web_automation', [tool, 'host'])]).toEqual([tool, 'network_tool']);
      }
      expect(rule('web_automation', ['python3', '-m', 'http.server', '8000'])).toBe('forbidden_argument');
      expect(rule('web_automation', ['python', '-mSimpleHTTPServer'])).toBe('forbidden_argument');
      expect(rule('web_automation', ['python3', '-m', 'json.tool'])).toBe('allowed');
      expect(rule('web_automation', ['bash', '-c', 'x'])).toBe('not_allowlisted');
    });
  });

  describe('full_vm_tools', () => {
    it('allows any program, by name or path, except privilege escalation', () => {
      for (const argv of [['bash', '-c', 'echo hi'], ['/usr/bin/ssh', 'host'], ['nc', '-l', '80'], ['python3', '-m', 'http.server']]) {
        expect([argv, allowed('full_vm_tools', argv)]).toEqual([argv, true]);
      }
      for (const tool of ['sudo', 'su', 'doas', 'pkexec', '/usr/bin/sudo']) expect(rule('full_vm_tools', [tool, 'x'])).toBe('privilege_escalation');
    });
  });
});
