import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { hashPassword, verifyPassword } from './password';

describe('passwords', () => {
  it('hashes with Argon2id and verifies; a wrong password or a malformed hash is false, never a throw', async () => {
    const hashed = await hashPassword('correct horse battery staple');
    expect(hashed).toMatch(/^\$argon2id\$/);
    expect(await verifyPassword(hashed, 'correct horse battery staple')).toBe(true);
    expect(await verifyPassword(hashed, 'wrong')).toBe(false);
    expect(await verifyPassword('not-a-hash', 'anything')).toBe(false);
  });

  it('loads the Argon2 native module on first use, not when the library is imported (the gateway proxy never hashes)', () => {
    const probe = [
      "const loaded = () => Object.keys(require.cache).some((path) => path.includes('@node-rs/argon2'));",
      "const domain = require('./libs/domain/src/index.ts');",
      'const before = loaded();',
      "domain.hashPassword('x').then(() => console.log(JSON.stringify({ before, after: loaded() })));",
    ].join('\n');
    const run = spawnSync(process.execPath, ['-r', '@swc-node/register', '-e', probe], {
      cwd: join(__dirname, '..', '..', '..', '..'),
      env: { ...process.env, SWC_NODE_PROJECT: 'tsconfig.base.json' },
      encoding: 'utf8',
    });
    if (run.status !== 0) throw new Error(`the probe failed (${run.status}): ${run.stderr}`);
    expect(JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}')).toEqual({ before: false, after: true });
  }, 60_000);
});
