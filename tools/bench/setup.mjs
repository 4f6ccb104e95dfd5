// What the benchmark scripts share: the gateway started as its image runs it, on a private Redis
// and a seeded data directory, and the readings they take of its processes.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { freePort, root, startNode, track } from '../processes.mjs';

/** The gateway runs with the node options and glibc malloc settings its image sets (deploy/docker/Dockerfile, ENV). */
const dockerfile = readFileSync(join(root, 'deploy', 'docker', 'Dockerfile'), 'utf8');
const imageNodeOptions = /\bNODE_OPTIONS="([^"]*)"/.exec(dockerfile)?.[1] ?? '';
const imageMalloc = Object.fromEntries([...dockerfile.matchAll(/\b(MALLOC_[A-Z_]+_)=(\d+)/g)].map((match) => [match[1], match[2]]));
export const imageRuntime = [`NODE_OPTIONS=${imageNodeOptions || '(none)'}`, ...Object.entries(imageMalloc).map(([name, value]) => `${name}=${value}`)].join(' ');

export const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

/** `REDIS_URL`, or a private `redis-server` on a free port (its pid is then known). */
export async function benchRedis() {
  if (process.env.REDIS_URL) return { url: process.env.REDIS_URL, pid: undefined };
  const port = await freePort();
  const redis = track(spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' }));
  await new Promise((resolve) => setTimeout(resolve, 300));
  return { url: `redis://127.0.0.1:${port}`, pid: redis.pid };
}

/** A fresh data directory seeded by `tools/bench/seed.ts`; resolves to it and the gateway key. */
export function seededDataDir() {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const seeded = spawnSync(process.execPath, ['-r', '@swc-node/register', 'tools/bench/seed.ts', dataDir], {
    cwd: root,
    env: { ...process.env, SWC_NODE_PROJECT: 'tsconfig.base.json' },
    encoding: 'utf8',
  });
  if (seeded.status !== 0) throw new Error(`seeding failed: ${seeded.stderr}`);
  return { dataDir, key: seeded.stdout.trim() };
}

/**
 * A production bundle of the gateway (`main`) on `port`, as its image runs it, against the mock at
 * `mockUrl`. `copyOf` gives it its own copy of a seeded data directory (two gateways cannot share
 * one: it is locked). `env` and `nodeArgs` come last, so they can override the image's settings.
 */
export function startGateway({ main = 'dist/apps/gateway/main.js', port, dataDir, copyOf, redisUrl, mockUrl, env = {}, nodeArgs = [] }) {
  if (copyOf) cpSync(copyOf, dataDir, { recursive: true });
  return startNode(
    [...nodeArgs, main],
    {
      NODE_OPTIONS: imageNodeOptions,
      ...imageMalloc,
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      GATEWAY_PORT: String(port),
      DATA_DIR: dataDir,
      REDIS_URL: redisUrl,
      OPENAI_BASE_URL: `${mockUrl}/v1`,
      MASTER_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
      JWT_SECRET: 'bench-secret-bench-secret-bench-secret',
      ...env,
    },
    'is running',
  );
}

/** autocannon for `seconds`; throws unless every answer had `status`. */
export async function cannon(url, headers, body, connections, { method = 'POST', status = 200, seconds }) {
  const result = await autocannon({ url, method, headers, body, connections, duration: seconds, pipelining: 1 });
  const other = Object.entries(result.statusCodeStats ?? {}).filter(([code, stats]) => Number(code) !== status && stats.count > 0);
  if (other.length > 0 || result.errors > 0) {
    throw new Error(`${url}: expected only ${status}, got ${JSON.stringify(result.statusCodeStats)} and ${result.errors} errors`);
  }
  return { rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, requests: result.requests.total };
}

/** CPU time (user + system) a process has used so far, in µs (from /proc; clock ticks of 10 ms). */
function cpuMicros(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** The machine's idle and total CPU time so far, in clock ticks (first line of /proc/stat; idle includes iowait). */
function machineTicks() {
  const ticks = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).slice(1).map(Number);
  return { idle: ticks[3] + ticks[4], total: ticks.reduce((sum, value) => sum + value, 0) };
}

/**
 * Runs `work` and returns its result with the CPU µs per request each named process spent meanwhile,
 * and how much of the machine stayed idle (when a single-threaded process is the limit, the rest of
 * the machine idles: saving CPU elsewhere, in Redis say, then adds no requests per second).
 */
export async function withCpu(pids, work) {
  const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuMicros(pid)]));
  const machineBefore = machineTicks();
  const result = await work();
  const machineAfter = machineTicks();
  const requests = result.requests;
  const cpu = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, Math.round((cpuMicros(pid) - before[name]) / requests)]));
  const idlePct = Math.round((100 * (machineAfter.idle - machineBefore.idle)) / Math.max(1, machineAfter.total - machineBefore.total));
  return { ...result, cpu, idlePct };
}

/** The process' resident memory now and at its peak so far (VmHWM), in MB. */
export function memoryMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const mb = (field) => Math.round(Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)[1]) / 1024);
  return { rss: mb('VmRSS'), peak: mb('VmHWM') };
}
