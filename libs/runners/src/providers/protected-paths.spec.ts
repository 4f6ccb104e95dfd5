import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { ProtectedPaths } from './protected-paths';

/** The DATA_DIR check every tool profile goes through, against real directories and symbolic links. */
describe('ProtectedPaths', () => {
  let root: string;
  let dataDir: string;
  let cwd: string;
  let paths: ProtectedPaths;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'svc-protected-'));
    dataDir = join(root, 'data');
    cwd = join(root, 'work', 'svc-runner-ses_1-abc');
    await mkdir(dataDir);
    await mkdir(cwd, { recursive: true });
    await writeFile(join(dataDir, 'instance-secrets.json'), '{}');
    paths = await ProtectedPaths.create([dataDir], process.pid);
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  const secrets = () => join(dataDir, 'instance-secrets.json');

  it('refuses an argument naming DATA_DIR or a path inside it, absolute or relative', async () => {
    expect(await paths.find(['cat', secrets()], cwd)).toBe(secrets());
    expect(await paths.find(['ls', dataDir], cwd)).toBe(dataDir);
    expect(await paths.find(['ls', `${dataDir}/`], cwd)).toBe(`${dataDir}/`);
    const climbing = relative(cwd, secrets());
    expect(climbing.startsWith('../')).toBe(true);
    expect(await paths.find(['cat', climbing], cwd)).toBe(climbing);
    expect(await paths.find(['cat', `/tmp/../${secrets()}`], cwd)).toBe(`/tmp/../${secrets()}`);
  });

  it('finds the path in option values and inside longer arguments (shells, interpreters)', async () => {
    for (const arg of [`--file=${secrets()}`, `-f${secrets()}`, `cat ${secrets()} | base64`, `open("${secrets()}").read()`, `if=${secrets()}`]) {
      expect([arg, await paths.find(['x', arg], cwd)]).toEqual([arg, arg]);
    }
  });

  it('follows symbolic links, also a link followed by ..', async () => {
    await symlink(root, join(cwd, 'up'));
    expect(await paths.find(['cat', 'up/data/instance-secrets.json'], cwd)).toBe('up/data/instance-secrets.json');
    await mkdir(join(dataDir, 'sub'));
    await symlink(join(dataDir, 'sub'), join(cwd, 'sub'));
    // Lexically `sub/..` is the session directory; for the kernel it is DATA_DIR.
    expect(await paths.find(['cat', 'sub/../instance-secrets.json'], cwd)).toBe('sub/../instance-secrets.json');
  });

  it("refuses the service's own /proc entries but not the child's /proc/self, and maps /proc/self/root", async () => {
    expect(await paths.find(['cat', `/proc/${process.pid}/environ`], cwd)).toBe(`/proc/${process.pid}/environ`);
    expect(await paths.find(['cat', `/proc/${process.pid}/cwd/x`], cwd)).toBe(`/proc/${process.pid}/cwd/x`);
    expect(await paths.find(['cat', '/proc/self/status'], cwd)).toBeNull();
    expect(await paths.find(['cat', `/proc/self/root${secrets()}`], cwd)).toBe(`/proc/self/root${secrets()}`);
  });

  it('lets everything else through', async () => {
    await writeFile(join(cwd, 'notes.txt'), 'x');
    for (const argv of [['cat', 'notes.txt'], ['ls', '/etc'], ['echo', 'data'], ['curl', 'https://example.com/data'], ['ls', `${dataDir}-other`], ['cat', basename(dataDir)]]) {
      expect([argv, await paths.find(argv, cwd)]).toEqual([argv, null]);
    }
    expect(paths.covers(dataDir)).toBe(true);
    // Without a directory (the fake provider), relative words name nothing; absolute ones still count.
    expect(await paths.find(['cat', relative(cwd, secrets())], null)).toBeNull();
    expect(await paths.find(['cat', secrets()], null)).toBe(secrets());
    expect(paths.covers(`${dataDir}x`)).toBe(false);
  });
});
