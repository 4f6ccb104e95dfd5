/**
 * Gives every test a real Redis: REDIS_URL when set, otherwise a private redis-server started
 * here on a free port (in-memory, no persistence) and stopped by global-teardown.js.
 * Test files read it from process.env.TEST_REDIS_URL.
 */
const { spawn, spawnSync } = require('node:child_process');
const net = require('node:net');

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function waitForPort(port, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ok = await new Promise((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => { socket.end(); resolve(true); });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`redis-server did not accept connections on port ${port} within ${timeoutMs} ms`);
}

module.exports = async function globalSetup() {
  if (process.env.REDIS_URL) {
    process.env.TEST_REDIS_URL = process.env.REDIS_URL;
    return;
  }
  const probe = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    throw new Error(
      'The tests need a real Redis. Either set REDIS_URL=redis://host:port, or install redis-server ' +
        '(Debian/Ubuntu: apt-get install -y redis-server; macOS: brew install redis) so the tests can start a private one.',
    );
  }
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'],
    { stdio: 'ignore', detached: false },
  );
  await waitForPort(port, 5000);
  globalThis.__TEST_REDIS__ = child;
  process.env.TEST_REDIS_URL = `redis://127.0.0.1:${port}`;
  process.env.TEST_REDIS_PORT = String(port);
};
