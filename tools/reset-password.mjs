#!/usr/bin/env node
// `npm run reset-password -- --email <email>`: builds the org API (cached by Nx after the first time)
// and runs the reset-password command bundled beside it, the one its image runs (docs/deploy.md).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const build = spawnSync('npx', ['nx', 'build', 'org-api', '--output-style=static'], {
  cwd: root,
  stdio: ['ignore', 'ignore', 'inherit'],
  env: { ...process.env, NX_TUI: 'false', NX_DAEMON: 'false', NX_NO_CLOUD: 'true' },
});
if (build.status !== 0) {
  process.stderr.write('npm run reset-password: the build failed (see above)\n');
  process.exit(build.status ?? 1);
}
// The same directory as `npm start`, so the default DATA_DIR (./.data) is the service's.
process.chdir(root);
createRequire(import.meta.url)(join(root, 'dist', 'apps', 'org-api', 'reset-password.js'));
