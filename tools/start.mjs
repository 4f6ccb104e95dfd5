#!/usr/bin/env node
// `npm start`: builds the one-process composition (cached by Nx after the first time) and runs it.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const build = spawnSync('npx', ['nx', 'build', 'standalone', '--output-style=static'], {
  cwd: root,
  stdio: ['ignore', 'ignore', 'inherit'],
  env: { ...process.env, NX_TUI: 'false', NX_DAEMON: 'false', NX_NO_CLOUD: 'true' },
});
if (build.status !== 0) {
  process.stderr.write('npm start: the build failed (see above)\n');
  process.exit(build.status ?? 1);
}
process.chdir(root);
createRequire(import.meta.url)(join(root, 'dist', 'apps', 'standalone', 'main.js'));
