import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../../testing/stores';
import { defineCollection } from '../types';
import { DataDirLockedError, LOCK_FILE } from './dir-lock';
import { EmbeddedDocumentStore } from './embedded-store';

const ROOT = join(__dirname, '..', '..', '..', '..', '..');
const NOTES = defineCollection<{ _id: string; text: string }>('notes', []);

/** A real second process that opens the embedded store on `dir` and keeps it open until SIGTERM. */
function openInChild(dir: string): { child: ChildProcess; output: () => string; opened: Promise<void>; exited: Promise<number | null> } {
  const script = `
    const { EmbeddedDocumentStore } = require('./libs/domain/src/store/embedded/embedded-store');
    EmbeddedDocumentStore.open(process.argv[1], require('pino')({ level: 'silent' })).then((store) => {
      // The handler goes in before the parent hears 'opened': a loaded machine may pause this
      // process between the two lines, and the parent's SIGTERM must not find the default action.
      process.once('SIGTERM', () => store.close().then(() => process.exit(0), () => process.exit(2)));
      process.stdout.write('opened\\n');
      setInterval(() => undefined, 1000);
    }, (error) => { process.stderr.write(error.message + '\\n'); process.exit(1); });`;
  const child = spawn(process.execPath, ['-r', '@swc-node/register', '-e', script, dir], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', SWC_NODE_PROJECT: 'tsconfig.base.json' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const opened = new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', () => output.includes('opened') && resolve());
    void exited.then(() => reject(new Error(`the child exited before opening the store:\n${output}`)));
  });
  return { child, output: () => output, opened, exited };
}

describe('embedded store directory lock', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-lock-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('refuses a second open in the same process, and allows it once the first is closed', async () => {
    const first = await EmbeddedDocumentStore.open(dir, silentLogger());
    await expect(EmbeddedDocumentStore.open(dir, silentLogger())).rejects.toThrow(DataDirLockedError);
    await expect(EmbeddedDocumentStore.open(join(dir, '.'), silentLogger())).rejects.toThrow(`is in use by process ${process.pid}`);
    await first.collection(NOTES).insertOne({ _id: 'n1', text: 'kept' });
    await first.close();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    const second = await EmbeddedDocumentStore.open(dir, silentLogger());
    expect(await second.collection(NOTES).findOne({ _id: 'n1' })).toEqual({ _id: 'n1', text: 'kept' });
    await second.close();
  });

  it('with two real processes: the second is refused with the first one pid and the ways out', async () => {
    const holder = openInChild(dir);
    try {
      await holder.opened;
      const error = await EmbeddedDocumentStore.open(dir, silentLogger()).then(
        () => null,
        (e: unknown) => e as Error,
      );
      expect(error).toBeInstanceOf(DataDirLockedError);
      expect(error?.message).toContain(`DATA_DIR ${dir} is in use by process ${holder.child.pid}`);
      expect(error?.message).toMatch(/different DATA_DIR/);
      expect(error?.message).toMatch(/REDIS_URL and MONGODB_URI/);

      // And the other way round: a process started while this one holds the directory exits.
      holder.child.kill('SIGTERM');
      expect(await holder.exited).toBe(0);
      const mine = await EmbeddedDocumentStore.open(dir, silentLogger());
      const refused = openInChild(dir);
      await expect(refused.opened).rejects.toThrow();
      expect(await refused.exited).toBe(1);
      expect(refused.output()).toContain(`is in use by process ${process.pid}`);
      await mine.close();
    } finally {
      holder.child.kill('SIGKILL');
    }
  }, 60_000);

  it('takes over the lock of a process that died without closing (SIGKILL)', async () => {
    const holder = openInChild(dir);
    await holder.opened;
    holder.child.kill('SIGKILL');
    await holder.exited;
    expect(JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8'))).toMatchObject({ pid: holder.child.pid });
    const store = await EmbeddedDocumentStore.open(dir, silentLogger());
    expect(JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8'))).toMatchObject({ pid: process.pid, hostname: hostname() });
    await store.close();
  }, 60_000);

  it('does not remove a lock that another holder wrote after this one was taken over', async () => {
    const store = await EmbeddedDocumentStore.open(dir, silentLogger());
    const other = `${JSON.stringify({ pid: 1, hostname: hostname(), token: 'other' })}\n`;
    await writeFile(join(dir, LOCK_FILE), other);
    await store.close();
    expect(await readFile(join(dir, LOCK_FILE), 'utf8')).toBe(other);
  });
});
