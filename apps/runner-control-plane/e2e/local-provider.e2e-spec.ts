import { existsSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { processesIn } from '@svc/runners';
import { bootRunners, eventually, Json, LOCAL_ON, RunnerTestContext } from './runner-helpers';

/** The `local` provider through HTTP: no shell, a throwaway directory, a clean env, timeouts, the output cap, tool profiles. */
describe('local runner provider', () => {
  let t: RunnerTestContext;
  beforeAll(async () => {
    t = await bootRunners(LOCAL_ON);
  });
  afterAll(() => t.stop());

  async function session(tool_profile: string) {
    const runner = await t.admin.createRunner({ provider_type: 'local', tool_profile });
    const started = await t.admin.startSession(runner.runner_id);
    const exec = (argv: string[], timeout?: number) => t.admin.exec(runner.runner_id, started.session_id, argv, timeout);
    return { runnerId: runner.runner_id as string, sessionId: started.session_id as string, exec };
  }
  const lastEvent = async (runnerId: string) => (await t.admin.get(`/${runnerId}/events`, { limit: '1' })).body.events[0] as Json;

  it('runs argv without a shell, in a throwaway directory that is removed at stop, with PATH as the only variable', async () => {
    const s = await session('full_vm_tools');
    expect((await s.exec(['echo', '$HOME', '&&', 'ls', ';', 'rm'])).body.stdout).toBe('$HOME && ls ; rm\n');
    const env = await s.exec(['env']);
    expect(env.body.exit_code).toBe(0);
    const variables = (env.body.stdout as string).trim().split('\n');
    expect(variables).toHaveLength(1);
    expect(variables[0]).toMatch(/^PATH=\/usr\/local\/sbin:/);
    const pwd = ((await s.exec(['pwd'])).body.stdout as string).trim();
    expect(pwd.startsWith(t.workDir)).toBe(true);
    expect(pwd).toContain(`svc-runner-${s.sessionId}-`);
    expect((await s.exec(['touch', 'notes.txt'])).body.exit_code).toBe(0);
    expect((await s.exec(['ls'])).body.stdout).toBe('notes.txt\n');
    expect(existsSync(pwd)).toBe(true);
    expect((await t.admin.post(`/${s.runnerId}/stop`, undefined, { session_id: s.sessionId })).status).toBe(200);
    expect(existsSync(pwd)).toBe(false);
  });

  it('reports exit codes: 0 is command_executed, anything else command_failed (127 when the command does not exist)', async () => {
    const s = await session('locked');
    const failing = await s.exec(['ls', 'no-such-file']);
    expect(failing.body).toMatchObject({ exit_code: 2, stdout: '' });
    expect(failing.body.stderr).toContain('no-such-file');
    expect(await lastEvent(s.runnerId)).toMatchObject({ event_type: 'command_failed', detail: { exit_code: 2, status: 'failed' } });
    expect((await s.exec(['true'])).body.exit_code).toBe(0);
    expect(await lastEvent(s.runnerId)).toMatchObject({ event_type: 'command_executed', detail: { exit_code: 0, status: 'completed' } });
    const free = await session('full_vm_tools');
    const missing = await free.exec(['no-such-command-xyz']);
    expect(missing.body).toMatchObject({ exit_code: 127, stderr: 'no-such-command-xyz: command not found\n' });
  });

  it('kills a command at timeout_seconds: exit_code null, stderr says so, command_failed timed_out', async () => {
    const s = await session('locked');
    const began = Date.now();
    const res = await s.exec(['sleep', '30'], 1);
    expect(Date.now() - began).toBeLessThan(5_000);
    expect(res.status).toBe(200);
    expect(res.body.exit_code).toBeNull();
    expect(res.body.stderr).toContain('[timed out after 1s: the command was killed]');
    expect(await lastEvent(s.runnerId)).toMatchObject({ event_type: 'command_failed', detail: { status: 'timed_out', timed_out: true, exit_code: null } });
    const stored = await t.repos.runnerCommands.findById(t.orgId, res.body.command_id);
    expect(stored).toMatchObject({ status: 'timed_out', exit_code: null });
  });

  it('cuts output over the 64 KiB cap with a marker and keeps the command’s exit code', async () => {
    const s = await session('locked');
    const res = await s.exec(['seq', '1', '40000']);
    expect(res.body.exit_code).toBe(0);
    const stdout = res.body.stdout as string;
    expect(stdout.startsWith('1\n2\n3\n')).toBe(true);
    expect(stdout).toMatch(/\n\[output truncated: \d+ more bytes over the 65536-byte cap\]\n$/);
    const kept = stdout.slice(0, stdout.indexOf('\n[output truncated'));
    expect(Buffer.byteLength(kept)).toBe(65536);
    expect(await lastEvent(s.runnerId)).toMatchObject({ event_type: 'command_executed', detail: { truncated: true } });
  });

  it.each([
    [['curl', 'https://example.com'], 'network_tool'],
    [['wget', 'https://example.com'], 'network_tool'],
    [['nc', '-l', '8080'], 'network_tool'],
    [['ssh', 'host'], 'network_tool'],
    [['python3', '-m', 'http.server'], 'not_allowlisted'],
    [['sh', '-c', 'curl example.com'], 'not_allowlisted'],
    [['/usr/bin/curl', 'https://example.com'], 'path_not_allowed'],
    [['cat', '/etc/passwd'], 'argument_outside_workdir'],
    [['cp', '../x', 'y'], 'argument_outside_workdir'],
    [['split', '--filter=sh -c id', '/dev/zero'], 'not_allowlisted'],
    [['split', '--filter', 'touch pwned', 'notes.txt'], 'not_allowlisted'],
    [['sort', '--compress-program=sh', 'notes.txt'], 'forbidden_argument'],
    [['sort', '--compress', 'sh', 'notes.txt'], 'forbidden_argument'],
    [['sort', '--files0-from=list'], 'forbidden_argument'],
    [['date', '-f/etc/hostname'], 'argument_outside_workdir'],
    [['sort', '-o/tmp/svc-escape', 'notes.txt'], 'argument_outside_workdir'],
    [['grep', '-f/etc/passwd', 'x', 'notes.txt'], 'argument_outside_workdir'],
    [['cp', '-t/tmp', 'notes.txt'], 'argument_outside_workdir'],
  ])('the locked profile refuses %j (403 policy_denied, %s)', async (argv, rule) => {
    const s = await session('locked');
    const res = await s.exec(argv);
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ type: 'permission_error', code: 'policy_denied', param: 'argv' });
    const event = await lastEvent(s.runnerId);
    expect(event).toMatchObject({ event_type: 'policy_denied', session_id: s.sessionId, detail: { rule, tool_profile: 'locked' } });
    expect(event.actor).toMatch(/^key_/);
    expect(await t.repos.runnerCommands.listBySession(t.orgId, s.sessionId)).toEqual([]);
  });

  it('refuses, for every profile, an argument reaching DATA_DIR (instance secrets): directly, in a shell line, through a link', async () => {
    const secrets = join(t.service.dataDir, 'instance-secrets.json');
    expect(existsSync(secrets)).toBe(true);
    const s = await session('full_vm_tools');
    const cwd = ((await s.exec(['pwd'])).body.stdout as string).trim();
    expect((await s.exec(['ln', '-s', dirname(t.service.dataDir), 'up'])).body.exit_code).toBe(0);
    for (const argv of [
      ['cat', secrets],
      ['cat', relative(cwd, secrets)],
      ['sh', '-c', `cat ${secrets}`],
      ['python3', '-c', `print(open('${secrets}').read())`],
      ['cp', `--target-directory=${t.service.dataDir}`, 'x'],
      ['cat', `up/${relative(dirname(t.service.dataDir), secrets)}`],
      ['cat', `/proc/${process.pid}/environ`],
    ]) {
      const res = await s.exec(argv);
      expect([argv, res.status, res.body.error?.code]).toEqual([argv, 403, 'policy_denied']);
      expect(JSON.stringify(res.body)).not.toContain(t.service.runtime.secrets.jwtSecret);
      expect(await lastEvent(s.runnerId)).toMatchObject({ event_type: 'policy_denied', detail: { rule: 'protected_path', tool_profile: 'full_vm_tools' } });
    }
    const web = await session('web_automation');
    expect((await web.exec(['cat', secrets])).body.error.code).toBe('policy_denied');
    expect(await lastEvent(web.runnerId)).toMatchObject({ event_type: 'policy_denied', detail: { rule: 'protected_path' } });
    expect((await s.exec(['cat', '/etc/hostname'])).status).toBe(200);
  });

  it('kills at terminate what a command left running in another session (setsid) inside the session directory', async () => {
    const s = await session('full_vm_tools');
    const pwd = ((await s.exec(['pwd'])).body.stdout as string).trim();
    expect((await s.exec(['sh', '-c', 'setsid sleep 30 & sleep 0.3'])).body.exit_code).toBe(0);
    expect(await processesIn([pwd])).toHaveLength(1);
    expect((await t.admin.post(`/${s.runnerId}/terminate`)).status).toBe(200);
    await eventually(async () => (await processesIn([pwd])).length === 0);
    expect(existsSync(pwd)).toBe(false);
  });

  it('answers 409 invalid_state, without failing the runner, when the session directory is gone (never recreated)', async () => {
    const s = await session('locked');
    const pwd = ((await s.exec(['pwd'])).body.stdout as string).trim();
    rmSync(pwd, { recursive: true });
    const res = await s.exec(['touch', 'x']);
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'invalid_state', message: expect.stringContaining('no working directory') });
    expect(existsSync(pwd)).toBe(false);
    expect(await lastEvent(s.runnerId)).toMatchObject({ event_type: 'command_failed', detail: { error: expect.stringContaining('no working directory') } });
    expect((await t.admin.get(`/${s.runnerId}`)).body.state).toBe('running');
    expect((await t.admin.post(`/${s.runnerId}/stop`, undefined, { session_id: s.sessionId })).status).toBe(200);
  });

  it('web_automation allows HTTP clients and interpreters but not remote shells or servers', async () => {
    const s = await session('web_automation');
    expect((await s.exec(['curl', '--version'])).body.exit_code).toBe(0);
    expect((await s.exec(['ssh', 'host'])).status).toBe(403);
    expect((await s.exec(['python3', '-m', 'http.server', '8000'])).status).toBe(403);
    expect((await s.exec(['bash', '-c', 'echo hi'])).status).toBe(403);
  });
});
