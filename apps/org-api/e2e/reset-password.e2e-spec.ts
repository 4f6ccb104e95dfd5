import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnCommand, spawnNode, WORKSPACE_ROOT } from '@svc/testing';
import { Json, OrgApi, OWNER_EMAIL, OWNER_PASSWORD } from './org-api.helpers';

/** The command as the org-api image runs it (`node reset-password.js`), built by the npm script below. */
const BUNDLE = 'dist/apps/org-api/reset-password.js';
const NEW_PASSWORD = 'a-brand-new-owner-password';
const REDIS_URL = process.env.TEST_REDIS_URL as string;

async function run(args: string[], env: Record<string, string>, input?: string): Promise<{ code: number | string; output: string }> {
  const child = spawnNode(args, env, { input });
  const code = await child.exited;
  return { code, output: child.output() };
}

/**
 * The command on a pseudo-terminal: `script` (util-linux) gives it one that echoes what is typed,
 * as a terminal does, unless the program turns echo off; `stty -a` then shows the terminal it left.
 * Each answer is typed once its prompt has shown.
 */
async function atTerminal(args: string[], env: Record<string, string>, answers: [prompt: string, keys: string][]): Promise<{ output: string; exit: string; stty: string }> {
  const command = `node ${[BUNDLE, ...args].join(' ')}; echo "exit=$?"; stty -a`;
  if (spawnSync('script', ['--version']).error) {
    throw new Error('this test needs `script` for a pseudo-terminal: it comes with util-linux (Debian: apt-get install -y bsdutils; macOS has its own `script`, not this one)');
  }
  const child = spawnCommand('script', ['-q', '-c', command, '/dev/null'], env, { interactive: true });
  for (const [prompt, keys] of answers) {
    await child.waitFor(prompt, 30_000);
    child.child.stdin?.write(keys);
  }
  await child.waitFor(/exit=\d+/, 30_000);
  expect(await child.exited).toBe(0);
  child.child.stdin?.end();
  const [output, stty] = child.output().split(/exit=\d+\r?\n/);
  return { output, exit: /exit=(\d+)/.exec(child.output())?.[1] ?? '', stty };
}

/**
 * DECISIONS.md "Bootstrap" prints a generated Owner password once; `npm run reset-password` is the
 * way back when it is lost: stop the service, run it on the service's data, start again.
 */
describe('reset-password (operator command, embedded store)', () => {
  const dirs: string[] = [];
  const dataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-reset-'));
    dirs.push(dir);
    return dir;
  };
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  beforeAll(async () => {
    // `npm run reset-password` is this script: it builds the org API with the command bundled beside main.js.
    const scripts = (JSON.parse(readFileSync(join(WORKSPACE_ROOT, 'package.json'), 'utf8')) as Json).scripts;
    expect(scripts['reset-password']).toBe('node tools/reset-password.mjs');
    const help = await run(['tools/reset-password.mjs', '--help'], {});
    expect(help).toMatchObject({ code: 0, output: expect.stringContaining('Usage: reset-password --email <email> [--password-stdin]') });
  }, 180_000);

  it('is bundled beside main.js, requiring only packages the image installs (its generated package.json)', () => {
    const bundle = join(WORKSPACE_ROOT, 'dist', 'apps', 'org-api');
    const listed = Object.keys((JSON.parse(readFileSync(join(bundle, 'package.json'), 'utf8')) as Json).dependencies);
    const required = [...readFileSync(join(WORKSPACE_ROOT, BUNDLE), 'utf8').matchAll(/require\("([^".][^"]*)"\)/g)]
      .map(([, id]) => (id.startsWith('@') ? id.split('/').slice(0, 2) : id.split('/').slice(0, 1)).join('/'))
      .filter((name) => !name.startsWith('node:') && !builtinModules.includes(name));
    expect(required).toEqual(expect.arrayContaining(['@node-rs/argon2', 'ioredis']));
    expect([...new Set(required)].filter((name) => !listed.includes(name))).toEqual([]);
  });

  it('refuses while the service runs; stopped, sets the password, ends the sessions and the lockout', async () => {
    const dir = dataDir();
    const env = { DATA_DIR: dir, REDIS_URL };
    // An Owner of its own: the lockout below is kept in the Redis other suites share.
    const email = `owner-${process.pid}-${Date.now()}@example.com`;
    const first = await OrgApi.boot({ ...env, BOOTSTRAP_ADMIN_EMAIL: email });
    const session = await first.login(email, OWNER_PASSWORD);
    // The service holds DATA_DIR: the command says so and changes nothing.
    const refused = await run([BUNDLE, '--email', email, '--password-stdin'], env, `${NEW_PASSWORD}\n`);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain(`reset-password: the service is running on DATA_DIR ${dir} (process ${process.pid}, since `);
    expect(refused.output).toContain('stop it, then run this again');
    expect((await first.call('GET', '/api/v1/user/profile', { token: session.token })).status).toBe(200);
    // Locked out by guesses (kept in Redis, across the restart).
    for (let i = 0; i < 6; i += 1) await first.call('POST', '/api/v1/auth/login', { body: { email, password: `guess-${i}-000000` } });
    expect((await first.call('POST', '/api/v1/auth/login', { body: { email, password: OWNER_PASSWORD } })).status).toBe(429);
    await first.stop();

    const reset = await run([BUNDLE, '--email', email.toUpperCase(), '--password-stdin'], env, `${NEW_PASSWORD}\n`);
    expect(reset.code).toBe(0);
    expect(reset.output).toMatch(new RegExp(`^reset-password: ${email} \\(usr_\\w+, Owner of org_\\w+\\)$`, 'm'));
    expect(reset.output).toContain('password        set from stdin');
    expect(reset.output).toContain('sessions        1 signed-in session(s) ended; access tokens of 1 recent login(s) revoked');
    expect(reset.output).toContain('login lockouts  1 cleared in Redis');
    expect(reset.output).toContain(`store           embedded file store in ${dir}`);
    expect(reset.output).not.toContain(NEW_PASSWORD);

    const second = await OrgApi.boot({ ...env, BOOTSTRAP_ADMIN_EMAIL: email });
    try {
      const owner = await second.repos.users.findByEmailForLogin(email);
      expect(owner?.password_hash).toMatch(/^\$argon2id\$/);
      expect((await second.login(email, NEW_PASSWORD)).token).toBeTruthy();
      const old = await second.call('POST', '/api/v1/auth/login', { body: { email, password: OWNER_PASSWORD } });
      expect(old.status).toBe(401);
      const refresh = await second.call('POST', '/api/v1/auth/refresh', { body: { refresh_token: session.refresh } });
      expect(refresh.status).toBe(401);
      expect(refresh.body.error).toMatchObject({ code: 'UNAUTHORIZED', details: { reason: 'logged_out' } });
      const profile = await second.call('GET', '/api/v1/user/profile', { token: session.token });
      expect(profile.status).toBe(401);
      expect(profile.body.error.message).toMatch(/revoked/);
    } finally {
      await second.stop();
    }
  }, 60_000);

  it('npm run reset-password without --password-stdin generates a password and prints it once', async () => {
    const dir = dataDir();
    const first = await OrgApi.boot({ DATA_DIR: dir });
    await first.stop();
    const reset = await run(['tools/reset-password.mjs', '--email', OWNER_EMAIL], { DATA_DIR: dir });
    expect(reset.code).toBe(0);
    expect(reset.output).toContain("login lockouts  none stored: the embedded mode counts them in the service's memory, which its restart clears");
    expect(reset.output).toContain('Start the service again, then log in with the new password.');
    const generated = /password {8}generated \(shown once\): (\w{24})$/m.exec(reset.output)?.[1];
    expect(generated).toMatch(/^\w{24}$/);
    const second = await OrgApi.boot({ DATA_DIR: dir });
    try {
      expect((await second.login(OWNER_EMAIL, generated as string)).token).toBeTruthy();
      expect((await second.call('POST', '/api/v1/auth/login', { body: { email: OWNER_EMAIL, password: OWNER_PASSWORD } })).status).toBe(401);
    } finally {
      await second.stop();
    }
  }, 180_000);

  it('at a terminal, --password-stdin asks twice with echo off; a mismatch or Ctrl-C refuses, the terminal is left as found', async () => {
    const dir = dataDir();
    await (await OrgApi.boot({ DATA_DIR: dir })).stop();
    const env = { DATA_DIR: dir };
    const args = ['--email', OWNER_EMAIL, '--password-stdin'];
    const echoing = (stty: string) => ({ echo: /(^|\s)echo(\s|$)/m.test(stty), icanon: /(^|\s)icanon(\s|$)/m.test(stty) });

    const mismatch = await atTerminal(args, env, [['New password: ', `${NEW_PASSWORD}\r`], ['Repeat it: ', 'another-password-typed\r']]);
    expect(mismatch).toMatchObject({ exit: '2', output: expect.stringContaining('reset-password: the two passwords typed differ; nothing was changed') });
    expect(mismatch.output).not.toContain(NEW_PASSWORD);
    expect(mismatch.output).not.toContain('another-password-typed');

    const interrupted = await atTerminal(args, env, [['New password: ', 'half-typed\u0003']]);
    expect(interrupted).toMatchObject({ exit: '130', output: expect.stringContaining('reset-password: interrupted (Ctrl-C); nothing was changed') });
    expect(interrupted.output).not.toContain('half-typed');
    expect(echoing(interrupted.stty)).toEqual({ echo: true, icanon: true });

    // A typo taken back with Backspace, then the same password again.
    const reset = await atTerminal(args, env, [['New password: ', `${NEW_PASSWORD}zq\u007f\u007f\r`], ['Repeat it: ', `${NEW_PASSWORD}\r`]]);
    expect(reset).toMatchObject({ exit: '0', output: expect.stringContaining('password        set from the terminal') });
    expect(reset.output).toMatch(/^New password: \r?\nRepeat it: \r?\nreset-password: /);
    expect(reset.output).not.toContain(NEW_PASSWORD);
    expect(echoing(reset.stty)).toEqual({ echo: true, icanon: true });
    const after = await OrgApi.boot(env);
    try {
      expect((await after.login(OWNER_EMAIL, NEW_PASSWORD)).token).toBeTruthy();
    } finally {
      await after.stop();
    }
  }, 120_000);

  it('refuses bad input with a clear message and a non-zero exit, changing nothing', async () => {
    const dir = dataDir();
    await (await OrgApi.boot({ DATA_DIR: dir })).stop();
    const env = { DATA_DIR: dir };
    const cases: [args: string[], input: string | undefined, env: Record<string, string>, code: number, message: RegExp][] = [
      [['--email', 'nobody@example.com'], undefined, env, 1, new RegExp(`No user has the e-mail nobody@example.com in the embedded store at ${dir} \\(DATA_DIR\\); nothing was changed`)],
      [[], undefined, env, 2, /--email is required/],
      [['--email'], undefined, env, 2, /--email needs a value/],
      [['--email', OWNER_EMAIL, '--password', NEW_PASSWORD], undefined, env, 2, /not taken as an argument \(it would land in shell history and process lists\)/],
      [['--email', OWNER_EMAIL, '--verbose'], undefined, env, 2, /unknown argument --verbose/],
      [['--email', OWNER_EMAIL, '--password-stdin'], 'too-short\n', env, 2, /the new password must be at least 12 characters \(it has 9\); nothing was changed/],
      [['--email', OWNER_EMAIL, '--password-stdin'], '', env, 2, /must be at least 12 characters \(it has 0\)/],
      [['--email', OWNER_EMAIL, '--password-stdin'], `${NEW_PASSWORD}\nsecond-line-of-a-file\n`, env, 2, /must be one line/],
      [['--email', OWNER_EMAIL], undefined, { DATA_DIR: join(dir, 'missing') }, 1, /DATA_DIR .*missing does not exist: run this where the service keeps its data/],
      [['--email', OWNER_EMAIL], undefined, { ...env, MONGODB_URI: 'http://db.example.com' }, 1, /MONGODB_URI: must be a URL starting with mongodb:\/\//],
    ];
    for (const [args, input, caseEnv, code, message] of cases) {
      const result = await run([BUNDLE, ...args], caseEnv, input);
      expect({ args, code: result.code, output: result.output }).toEqual({ args, code, output: expect.stringMatching(message) });
    }
    const unchanged = await OrgApi.boot(env);
    try {
      expect((await unchanged.loginOwner()).token).toBeTruthy();
    } finally {
      await unchanged.stop();
    }
  }, 120_000);
});
