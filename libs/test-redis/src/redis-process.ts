import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { connect, createServer } from 'node:net';

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** A private redis-server child process for tests that stop, pause and restart Redis. */
export interface RedisProcess {
  port: number;
  url: string;
  /** Kills the server (SIGKILL: no goodbye to the clients). Its data is gone. */
  stop(): Promise<void>;
  /** Starts it again on the same port (empty: no persistence). */
  start(): Promise<void>;
  /** SIGSTOP: connections stay open but nothing is answered, like a network partition. */
  pause(): void;
  /** SIGCONT after `pause`. */
  resume(): void;
}

async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.end();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`redis-server did not listen on ${port} within ${timeoutMs} ms`);
}

/** Starts `redis-server` on a free port of 127.0.0.1, in memory only. */
export async function startRedisProcess(): Promise<RedisProcess> {
  const probe = spawnSync('redis-server', ['--version']);
  if (probe.error || probe.status !== 0) {
    throw new Error('This test starts its own redis-server, and there is none on the PATH: apt-get install -y redis-server (macOS: brew install redis).');
  }
  const port = await freePort();
  let child: ChildProcess | null = null;
  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    await waitForPort(port, 5000);
  };
  const stop = async () => {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.kill('SIGKILL');
    });
  };
  const signal = (name: NodeJS.Signals) => {
    if (!child || child.exitCode !== null) throw new Error('redis-server is not running');
    child.kill(name);
  };
  await start();
  return { port, url: `redis://127.0.0.1:${port}`, start, stop, pause: () => signal('SIGSTOP'), resume: () => signal('SIGCONT') };
}
