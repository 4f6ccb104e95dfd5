#!/usr/bin/env node
// `npm run bench:ab`: two gateways side by side (two bundles, or one bundle with two environments),
// measured in alternating pairs of saturated runs: the machine's speed drifts from minute to minute,
// so only runs close in time compare. Prints each pair's requests per second and gateway CPU per
// request, the median ratios B/A, and each gateway's memory. Run it with A and B the same first: the
// spread of that A/A is the noise any difference has to beat.
import { rmSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { freePort, startMockProvider, stopChildren } from '../processes.mjs';
import { benchRedis, cannon, memoryMb, quantile, seededDataDir, startGateway, withCpu } from './setup.mjs';

const USAGE = `usage: node tools/bench/ab.mjs [--a <bundle>] [--b <bundle>] [--a-env <json>] [--b-env <json>]
                 [--pairs 10] [--seconds 3] [--connections 50] [--stream]
  --a, --b          the gateway bundles (default: dist/apps/gateway/main.js, built by npm run bench)
  --a-env, --b-env  extra environment of each, as a JSON object (e.g. '{"NODE_OPTIONS":"--max-semi-space-size=8"}')`;

process.on('exit', stopChildren);
process.on('SIGINT', () => process.exit(130));

class UsageError extends Error {}

function options() {
  const { values } = parseOptions({
    options: {
      a: { type: 'string', default: 'dist/apps/gateway/main.js' },
      b: { type: 'string', default: 'dist/apps/gateway/main.js' },
      'a-env': { type: 'string', default: '{}' },
      'b-env': { type: 'string', default: '{}' },
      pairs: { type: 'string', default: '10' },
      seconds: { type: 'string', default: '3' },
      connections: { type: 'string', default: '50' },
      stream: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const env = (name) => {
    let parsed;
    try {
      parsed = JSON.parse(values[name]);
    } catch {
      throw new UsageError(`--${name} must be a JSON object`);
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new UsageError(`--${name} must be a JSON object`);
    return parsed;
  };
  const count = (name) => {
    const value = Number(values[name]);
    if (!Number.isInteger(value) || value < 1) throw new UsageError(`--${name} must be a positive integer`);
    return value;
  };
  return { a: { main: values.a, env: env('a-env') }, b: { main: values.b, env: env('b-env') }, pairs: count('pairs'), seconds: count('seconds'), connections: count('connections'), stream: values.stream };
}

async function main() {
  const opts = options();
  const redis = await benchRedis();
  const mockPort = await freePort();
  await startMockProvider(mockPort);
  const mockUrl = `http://127.0.0.1:${mockPort}`;
  const seeded = seededDataDir();
  const gateways = {};
  for (const name of ['a', 'b']) {
    const port = await freePort();
    const child = await startGateway({ ...opts[name], port, dataDir: `${seeded.dataDir}-${name}`, copyOf: seeded.dataDir, redisUrl: redis.url, mockUrl });
    gateways[name] = { child, pid: child.pid, url: `http://127.0.0.1:${port}/v1/chat/completions` };
  }
  const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello to the benchmark' }], max_tokens: 64, ...(opts.stream ? { stream: true } : {}) });
  const headers = { 'content-type': 'application/json', 'x-svc-api-key': seeded.key, 'x-provider-key': 'sk-bench' };
  const run = async (gateway, seconds, connections) => {
    const result = await withCpu({ gateway: gateway.pid }, () => cannon(gateway.url, headers, body, connections, { seconds }));
    return { rps: result.rps, cpuUs: result.cpu.gateway };
  };
  for (const gateway of Object.values(gateways)) await run(gateway, 3, 8); // warm up

  const ratios = { rps: [], cpu: [] };
  for (let i = 0; i < opts.pairs; i++) {
    // Each pair runs in the other order than the last, so a drift within a pair favours neither.
    const order = i % 2 === 0 ? ['a', 'b'] : ['b', 'a'];
    const measured = {};
    for (const name of order) measured[name] = await run(gateways[name], opts.seconds, opts.connections);
    const { a, b } = measured;
    ratios.rps.push(b.rps / a.rps);
    ratios.cpu.push(b.cpuUs / a.cpuUs);
    process.stdout.write(`pair ${i + 1}: A ${a.rps} rps, ${Math.round(a.cpuUs)} µs/request | B ${b.rps} rps, ${Math.round(b.cpuUs)} µs/request | B/A rps ${(b.rps / a.rps).toFixed(3)}\n`);
  }
  const median = (values) => quantile([...values].sort((x, y) => x - y), 0.5).toFixed(3);
  const memory = (name) => {
    const { rss, peak } = memoryMb(gateways[name].pid);
    return `${rss} MB (peak ${peak} MB)`;
  };
  process.stdout.write(
    [
      `median B/A over ${opts.pairs} pairs of ${opts.seconds} s at c=${opts.connections}${opts.stream ? ', streaming' : ''}: requests per second ${median(ratios.rps)}, gateway CPU per request ${median(ratios.cpu)}`,
      `resident memory now: A ${memory('a')}, B ${memory('b')}`,
      '',
    ].join('\n'),
  );
  // The gateways write their data directories as they close: remove those once they have exited.
  await Promise.all(Object.values(gateways).map(({ child }) => child.exitCode === null && new Promise((resolve) => child.once('exit', resolve).kill('SIGTERM'))));
  for (const dir of [seeded.dataDir, `${seeded.dataDir}-a`, `${seeded.dataDir}-b`]) rmSync(dir, { recursive: true, force: true });
}

/** parseArgs, its errors (unknown or malformed options) reported with the usage. */
function parseOptions(config) {
  try {
    return parseArgs(config);
  } catch (error) {
    throw new UsageError(error.message);
  }
}

main()
  .then(() => process.exit(0))
  .catch((error) => {
    process.stderr.write(error instanceof UsageError ? `${error.message}\n${USAGE}\n` : `${error.stack ?? error}\n`);
    process.exit(1);
  });
