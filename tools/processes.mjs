// Child processes of the tool scripts (`npm run bench`, `npm run fuzz`): free ports, Node processes
// started until they print that they are ready, and one stop for all of them.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: where the children run. */
export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const children = [];

export const freePort = () =>
  new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

/** Stops with the others: a child started some other way (e.g. `redis-server`). */
export function track(child) {
  children.push(child);
  return child;
}

/** Starts `node <args>` in the root; resolves once its output contains `readyText` (`child.output()` has it all). */
export function startNode(args, env, readyText) {
  const child = track(spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] }));
  let output = '';
  child.output = () => output;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out starting ${args.join(' ')}:\n${output}`)), 60_000);
    const onData = (chunk) => {
      output += chunk;
      if (output.includes(readyText)) {
        clearTimeout(timer);
        resolve(child);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}:\n${output}`)));
  });
}

/** Our mock provider (`tools/mock-provider`) on `port`, recording off. */
export const startMockProvider = (port) =>
  startNode(['-r', '@swc-node/register', 'tools/mock-provider/src/cli.ts', '--port', String(port), '--no-record'], { SWC_NODE_PROJECT: 'tsconfig.base.json' }, 'listening');

export function stopChildren() {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
}

/**
 * Runs a script's `main` and exits with the code it returns (0 when none), 1 with the error's stack
 * when it throws, or 130 on Ctrl-C; the children it started are stopped on every exit.
 */
export function runMain(main) {
  process.on('exit', stopChildren);
  process.on('SIGINT', () => process.exit(130));
  main().then(
    (code) => process.exit(typeof code === 'number' ? code : 0),
    (error) => {
      process.stderr.write(`${error.stack ?? error}\n`);
      process.exit(1);
    },
  );
}
