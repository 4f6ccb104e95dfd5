import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processesIn } from './local-processes';
import { LOCAL_PATH, LocalRunnerProvider } from './local.provider';
import { ProtectedPaths } from './protected-paths';
import { OutputStream, SessionGoneError, SessionRef } from './runner-provider';

describe('LocalRunnerProvider', () => {
  let workDir: string;
  let provider: LocalRunnerProvider;
  const session = (sessionId = 'ses_local1'): SessionRef => ({
    orgId: 'org_1',
    runnerId: 'run_1',
    sessionId,
    toolProfile: 'full_vm_tools',
    imageRef: null,
    runtimeVersion: null,
  });
  const exec = (argv: string[], timeoutSeconds = 10, onOutput?: (stream: OutputStream, text: string) => void, ref = session()) =>
    provider.exec({ ...ref, commandId: 'cmd_1', argv, timeoutSeconds, onOutput });

  beforeEach(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'svc-local-spec-'));
    provider = new LocalRunnerProvider({ workDir, outputCapBytes: 1024 });
  });
  afterEach(() => rm(workDir, { recursive: true, force: true }));

  it('is available when its directory is writable, not otherwise', async () => {
    expect(await provider.availability()).toMatchObject({ available: true });
    const broken = new LocalRunnerProvider({ workDir: join(workDir, 'missing', 'dir'), outputCapBytes: 1024 });
    expect(await broken.availability()).toMatchObject({ available: false, detail: expect.stringContaining('not writable') });
    await expect(broken.provision()).rejects.toThrow(/not writable/);
  });

  it('runs argv without a shell, with PATH only, in the session directory, and removes it at stop', async () => {
    await provider.startSession(session());
    const [dir] = await provider.findSessionDirs('ses_local1');
    expect(dir.startsWith(join(workDir, 'svc-runner-ses_local1-'))).toBe(true);
    expect(await exec(['echo', '*', '|', '$PATH'])).toMatchObject({ exitCode: 0, stdout: '* | $PATH\n' });
    expect((await exec(['env'])).stdout).toBe(`PATH=${LOCAL_PATH}\n`);
    expect((await exec(['pwd'])).stdout.trim()).toBe(dir);
    await provider.stopSession(session());
    expect(existsSync(dir)).toBe(false);
    expect(await provider.findSessionDirs('ses_local1')).toEqual([]);
  });

  it('refuses an exec whose session directory is gone and never creates it again', async () => {
    await expect(exec(['pwd'])).rejects.toBeInstanceOf(SessionGoneError);
    expect(await provider.findSessionDirs('ses_local1')).toEqual([]);
    await provider.startSession(session());
    const [dir] = await provider.findSessionDirs('ses_local1');
    expect(await provider.workingDirectory(session())).toBe(dir);
    await rm(dir, { recursive: true });
    await expect(exec(['pwd'])).rejects.toThrow(/no working directory/);
    expect(await provider.findSessionDirs('ses_local1')).toEqual([]);
    expect(await provider.workingDirectory(session())).toBeNull();
  });

  it('refuses an exec racing a stop: once the stop began, nothing starts in the session', async () => {
    await provider.startSession(session());
    const stopping = provider.stopSession(session());
    await expect(exec(['touch', 'late.txt'])).rejects.toBeInstanceOf(SessionGoneError);
    await stopping;
    expect(await provider.findSessionDirs('ses_local1')).toEqual([]);
    // A session that was stopped stays stopped on this host, even if its directory were made again.
    await mkdir(join(workDir, 'svc-runner-ses_local1-again'));
    await expect(exec(['pwd'])).rejects.toBeInstanceOf(SessionGoneError);
  });

  it('is unavailable when its directory lies inside a protected directory (DATA_DIR)', async () => {
    const inside = new LocalRunnerProvider({ workDir, outputCapBytes: 1024, protectedPaths: await ProtectedPaths.create([workDir], process.pid) });
    expect(await inside.availability()).toMatchObject({ available: false, detail: expect.stringContaining('inside DATA_DIR') });
    const beside = new LocalRunnerProvider({ workDir, outputCapBytes: 1024, protectedPaths: await ProtectedPaths.create([join(workDir, '..', 'svc-elsewhere')], process.pid) });
    expect(await beside.availability()).toMatchObject({ available: true });
  });

  it('kills at stop what left the process group (setsid) but stayed in the session directory', async () => {
    await provider.startSession(session());
    const [dir] = await provider.findSessionDirs('ses_local1');
    const result = await exec(['sh', '-c', 'setsid sleep 30 & sleep 0.3']);
    expect(result.timedOut).toBe(false);
    expect(await processesIn([dir])).toHaveLength(1);
    await provider.stopSession(session());
    expect(await processesIn([dir])).toEqual([]);
    expect(existsSync(dir)).toBe(false);
  });

  it('streams output as it comes and cuts each stream at the cap with a marker', async () => {
    await provider.startSession(session());
    const seen: string[] = [];
    const result = await exec(['seq', '1', '2000'], 10, (stream, text) => seen.push(`${stream}:${text.length}`));
    expect(result.exitCode).toBe(0);
    expect(result.truncated).toBe(true);
    expect(result.stdout).toMatch(/^1\n2\n/);
    const marker = result.stdout.indexOf('\n[output truncated: ');
    expect(Buffer.byteLength(result.stdout.slice(0, marker))).toBe(1024);
    expect(result.stdout).toContain('more bytes over the 1024-byte cap]');
    expect(seen.reduce((sum, entry) => sum + Number(entry.split(':')[1]), 0)).toBe(1024);
  });

  it('kills the whole process group at the timeout', async () => {
    await provider.startSession(session());
    const began = Date.now();
    const result = await exec(['sh', '-c', 'sleep 30 & sleep 30; echo never'], 1);
    expect(Date.now() - began).toBeLessThan(4_000);
    expect(result).toMatchObject({ exitCode: null, timedOut: true, stdout: '' });
    expect(result.stderr).toContain('[timed out after 1s: the command was killed]');
    expect(provider.runningCount()).toBe(0);
  });

  it('does not let a background process outlive its command', async () => {
    await provider.startSession(session());
    const began = Date.now();
    const result = await exec(['sh', '-c', 'sleep 30 & echo started']);
    expect(result).toMatchObject({ exitCode: 0, stdout: 'started\n', timedOut: false });
    expect(Date.now() - began).toBeLessThan(4_000);
  });

  it('answers 127 for a missing command and keeps other exit codes', async () => {
    await provider.startSession(session());
    expect(await exec(['no-such-command-xyz'])).toMatchObject({ exitCode: 127, stderr: 'no-such-command-xyz: command not found\n' });
    expect(await exec(['sh', '-c', 'echo oops >&2; exit 3'])).toMatchObject({ exitCode: 3, stderr: 'oops\n' });
  });

  it('kills what a session runs when it stops', async () => {
    await provider.startSession(session());
    const running = exec(['sleep', '30'], 30);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(provider.runningCount()).toBe(1);
    await provider.stopSession(session());
    expect((await running).exitCode).toBeNull();
    expect(provider.runningCount()).toBe(0);
  });
});
