// Shared by `npm start` and `npm run reset-password`: builds an app with Nx (cached after the first
// time) and runs one of its bundles in this process, from the workspace root, so the default
// DATA_DIR (./.data) is the same for both.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Builds `project`, or exits with the build's status naming `command`; then runs `dist/apps/<project>/<bundle>`. */
export function buildAndRun(command, project, bundle) {
  const build = spawnSync('npx', ['nx', 'build', project, '--output-style=static'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, NX_TUI: 'false', NX_DAEMON: 'false', NX_NO_CLOUD: 'true' },
  });
  if (build.status !== 0) {
    process.stderr.write(`${command}: the build failed (see above)\n`);
    process.exit(build.status ?? 1);
  }
  process.chdir(root);
  createRequire(import.meta.url)(join(root, 'dist', 'apps', project, bundle));
}
