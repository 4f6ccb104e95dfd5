#!/usr/bin/env node
// `npm run bench`: direct (mock upstream), a bare undici passthrough, and the gateway's production
// build on real Redis. Prints throughput, latency at concurrency 1 and 50 (non-streaming, and time
// to first byte for streaming), governance time, and the gateway's memory.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { freePort, root, runMain, startMockProvider, startNode } from '../processes.mjs';
import { benchRedis, cannon as cannonFor, imageRuntime, memoryMb, quantile, seededDataDir, startGateway, withCpu } from './setup.mjs';

const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
/** Alternating bare and gateway c=50 runs for the throughput ratio. */
const PAIRS = 5;
const PROVIDER_KEY = 'sk-bench';

const ms = (value) => Math.round(value * 1000) / 1000;

const cannon = (url, headers, body, connections, options = {}) => cannonFor(url, headers, body, connections, { ...options, seconds: DURATION });

/**
 * `--breakdown`: the gateway's CPU per request at c=50 for requests that stop at successive steps,
 * so that the difference between two rows is the cost of the step: the health route (Fastify and
 * Nest), a proxy request refused at authentication (unknown key), one refused after governance
 * (no provider key: body, routing, the full chain with its Redis admit, the settle, metrics and a
 * usage record), and a served request.
 */
async function breakdown(gatewayUrl, gatewayHeaders, body, pids) {
  const { 'x-provider-key': _providerKey, ...withoutProviderKey } = gatewayHeaders;
  const steps = [
    ['GET /health', `${gatewayUrl}/health`, {}, undefined, { method: 'GET' }],
    ['refused at authentication (401)', `${gatewayUrl}/v1/chat/completions`, { ...gatewayHeaders, 'x-svc-api-key': 'svc_sk_unknown_unknown_unknown' }, body, { status: 401 }],
    ['refused after governance (401 missing_provider_key)', `${gatewayUrl}/v1/chat/completions`, withoutProviderKey, body, { status: 401 }],
    ['served (200)', `${gatewayUrl}/v1/chat/completions`, gatewayHeaders, body, {}],
  ];
  const rows = [];
  for (const [label, url, headers, requestBody, options] of steps) {
    const measured = await withCpu(pids, () => cannon(url, headers, requestBody, 50, options));
    rows.push(`  ${label.padEnd(52)} ${cpuLine(measured.cpu)} (${measured.rps} rps)`);
  }
  return rows;
}

/**
 * Latency of `concurrency` request loops for DURATION seconds, to 1 µs (autocannon rounds to 1 ms):
 * until the first byte of the body (`firstByte`, streaming TTFB) or until the whole answer.
 */
async function latencyLoops(url, headers, body, concurrency, { firstByte }) {
  const dispatcher = new Agent({ connections: concurrency + 4 });
  const samples = [];
  const until = Date.now() + DURATION * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < until) {
        const started = performance.now();
        const res = await request(url, { method: 'POST', headers, body, dispatcher });
        let first = true;
        for await (const chunk of res.body) {
          if (first && firstByte) samples.push(performance.now() - started);
          first = false;
          void chunk;
        }
        if (!firstByte) samples.push(performance.now() - started);
        if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode}`);
      }
    }),
  );
  await dispatcher.close();
  samples.sort((a, b) => a - b);
  return { rps: Math.round(samples.length / DURATION), p50: ms(quantile(samples, 0.5)), p99: ms(quantile(samples, 0.99)), requests: samples.length };
}

/** Governance time as the gateway reports it (X-SVC-Governance-Time-Ms) for a 4 KB prompt. */
async function governanceTime(url, headers, body, count) {
  const samples = [];
  for (let i = 0; i < count; i++) {
    const res = await request(url, { method: 'POST', headers, body });
    await res.body.dump();
    samples.push(Number(res.headers['x-svc-governance-time-ms']));
  }
  samples.sort((a, b) => a - b);
  return { p50: quantile(samples, 0.5), p99: quantile(samples, 0.99) };
}

/**
 * Runs `work` and returns its result with, per request and per named process, what its main thread
 * did meanwhile (`/proc/<pid>/schedstat`): µs on a CPU, µs runnable but waiting for one, and how
 * many times it was scheduled in (a sleep and a wake-up each). At c=1 these show the cost of the
 * hops between processes, which a CPU profile of the gateway cannot.
 */
async function withSchedstat(pids, work) {
  const read = (pid) => readFileSync(`/proc/${pid}/schedstat`, 'utf8').trim().split(' ').map(Number);
  const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, read(pid)]));
  const result = await work();
  const perRequest = (value) => value / result.requests;
  const sched = Object.fromEntries(
    Object.entries(pids).map(([name, pid]) => {
      const [cpuNs, waitNs, runs] = read(pid).map((value, i) => value - before[name][i]);
      return [name, { cpuUs: Math.round(perRequest(cpuNs) / 1000), waitUs: Math.round(perRequest(waitNs) / 1000), runs: Math.round(perRequest(runs) * 10) / 10 }];
    }),
  );
  return { ...result, sched };
}

/** `gateway CPU 545 µs, waiting 29 µs, 3.1 runs; ...` from withSchedstat's figures. */
const schedLine = (sched) => Object.entries(sched).map(([name, s]) => `${name} CPU ${s.cpuUs}, waiting ${s.waitUs}, ${s.runs} runs`).join('; ');

/** `gateway 430, redis 52, ...` from withCpu's figures. */
const cpuLine = (cpu) => Object.entries(cpu).map(([name, us]) => `${name} ${us}`).join(', ');

async function main() {
  if (!process.argv.includes('--skip-build')) {
    const build = spawnSync('npx', ['nx', 'build', 'gateway', '--output-style=static'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, NX_TUI: 'false', NX_DAEMON: 'false' } });
    if (build.status !== 0) throw new Error('nx build gateway failed');
  }
  const swc = { SWC_NODE_PROJECT: 'tsconfig.base.json' };
  const { url: redisUrl, pid: redisPid } = await benchRedis();
  const [mockPort, barePort, gatewayPort] = [await freePort(), await freePort(), await freePort()];
  const mockProcess = await startMockProvider(mockPort);
  const mock = `http://127.0.0.1:${mockPort}`;
  const { dataDir, key } = seededDataDir();
  const nodeArgs = (process.env.BENCH_GATEWAY_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const gateway = await startGateway({ port: gatewayPort, dataDir, redisUrl, mockUrl: mock, nodeArgs });
  const idle = memoryMb(gateway.pid);
  const bareProcess = await startNode(['tools/bench/bare-proxy.mjs', String(barePort), mock], {}, 'bare proxy');

  const small = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello to the benchmark' }], max_tokens: 64 });
  const smallStream = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Stream hello to the benchmark' }], max_tokens: 64, stream: true });
  const prompt4k = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'system', content: 'You are terse.' }, { role: 'user', content: 'Summarise this text. '.repeat(195) }], max_tokens: 64 });
  const targets = {
    direct: { pids: { mock: mockProcess.pid }, url: `${mock}/v1/chat/completions`, headers: { 'content-type': 'application/json', authorization: `Bearer ${PROVIDER_KEY}` } },
    bare: { pids: { bare: bareProcess.pid, mock: mockProcess.pid }, url: `http://127.0.0.1:${barePort}/v1/chat/completions`, headers: { 'content-type': 'application/json', authorization: `Bearer ${PROVIDER_KEY}` } },
    gateway: { pids: { gateway: gateway.pid, ...(redisPid ? { redis: redisPid } : {}), mock: mockProcess.pid }, url: `http://127.0.0.1:${gatewayPort}/v1/chat/completions`, headers: { 'content-type': 'application/json', 'x-svc-api-key': key, 'x-provider-key': PROVIDER_KEY } },
  };
  const results = {};
  for (const [name, target] of Object.entries(targets)) {
    await cannon(target.url, target.headers, small, 8); // warm up
    const pids = { ...target.pids, 'load generator': process.pid };
    results[name] = {
      c1: await withSchedstat(pids, () => latencyLoops(target.url, target.headers, small, 1, { firstByte: false })),
      c50: await withCpu(pids, () => cannon(target.url, target.headers, small, 50)),
      stream_c1: await latencyLoops(target.url, target.headers, smallStream, 1, { firstByte: true }),
      stream_c50: await latencyLoops(target.url, target.headers, smallStream, 50, { firstByte: true }),
    };
    process.stderr.write(`measured ${name}\n`);
  }
  // The throughput ratio from alternating bare and gateway runs: the machine's speed drifts within
  // a minute, and the table's two c=50 runs are half a minute apart.
  // Each pair runs in the other order than the last, so a drift within a pair favours neither.
  const pairs = [];
  for (let i = 0; i < PAIRS; i++) {
    const rps = {};
    for (const name of i % 2 === 0 ? ['bare', 'gateway'] : ['gateway', 'bare']) rps[name] = (await cannon(targets[name].url, targets[name].headers, small, 50)).rps;
    pairs.push(rps.gateway / rps.bare);
  }
  const pairedRatio = quantile([...pairs].sort((a, b) => a - b), 0.5);
  const governance = await governanceTime(targets.gateway.url, targets.gateway.headers, prompt4k, 500);
  const memory = memoryMb(gateway.pid);
  const steps = process.argv.includes('--breakdown') ? await breakdown(`http://127.0.0.1:${gatewayPort}`, targets.gateway.headers, small, targets.gateway.pids) : [];
  // FailoverCounterStore logs this when Redis missed its 50 ms deadline and counting moved to memory.
  const fallbacks = gateway.output().split('governance counters fall back to memory').length - 1;
  // The chain alone, in process: with memory counters (no Redis round trip) and with Redis.
  const chain = spawnSync(process.execPath, ['-r', '@swc-node/register', 'libs/governance/bench/chain.bench.ts', redisUrl], { cwd: root, env: { ...process.env, ...swc }, encoding: 'utf8' });
  if (chain.status !== 0) throw new Error(`chain bench failed: ${chain.stderr}`);

  const row = (name, r) =>
    `${name.padEnd(8)} | ${String(r.c1.p50).padStart(7)} ${String(r.c1.p99).padStart(7)} | ${String(r.c50.rps).padStart(7)} ${String(r.c50.p50).padStart(6)} ${String(r.c50.p99).padStart(6)} | ${String(r.stream_c1.p50).padStart(7)} ${String(r.stream_c1.p99).padStart(7)} | ${String(r.stream_c50.rps).padStart(6)} ${String(r.stream_c50.p50).padStart(7)} ${String(r.stream_c50.p99).padStart(7)}`;
  const lines = [
    '',
    `Benchmark (${DURATION} s per run, latency in ms; c=1 and streaming TTFB are measured to 1 µs, the c=50 non-stream run by autocannon to 1 ms)`,
    '         |  c=1 non-stream   | c=50 non-stream        |  c=1 stream TTFB  | c=50 stream TTFB',
    'target   |     p50     p99 |     rps    p50    p99 |     p50     p99 |    rps     p50     p99',
    row('direct', results.direct),
    row('bare', results.bare),
    row('gateway', results.gateway),
    '',
    'CPU per request at c=50 non-stream (µs, user + system; compares across runs of a machine whose speed varies):',
    ...Object.entries(results).map(([name, r]) => `  ${name.padEnd(8)} ${cpuLine(r.c50.cpu)} (machine idle ${r.c50.idlePct} %)`),
    '',
    'c=1 non-stream, per request, each process\'s main thread (µs on a CPU, µs runnable but waiting for one, times scheduled in; /proc/<pid>/schedstat):',
    ...Object.entries(results).map(([name, r]) => `  ${name.padEnd(8)} ${schedLine(r.c1.sched)}`),
    '',
    ...(steps.length ? ['gateway CPU per request at c=50 by where the request stops (µs; --breakdown):', ...steps, ''] : []),
    `gateway governance time (4 KB prompt, full chain, X-SVC-Governance-Time-Ms): p50 ${governance.p50} ms, p99 ${governance.p99} ms`,
    `gateway fell back to memory counters ${fallbacks} time(s) during the runs (Redis later than its 50 ms deadline; governance times then exclude Redis)`,
    `gateway resident memory: ${idle.rss} MB idle after start, ${memory.rss} MB after the runs, ${memory.peak} MB at its peak (VmHWM; the image's ${imageRuntime})`,
    ...chain.stdout.trim().split('\n'),
    '',
    'targets:',
    `  added p99 at c=1 over direct (non-stream): ${ms(results.gateway.c1.p99 - results.direct.c1.p99)} ms (target < 1 ms)`,
    `  added p99 at c=1 over direct (stream TTFB): ${ms(results.gateway.stream_c1.p99 - results.direct.stream_c1.p99)} ms (target < 1 ms)`,
    `  saturated throughput vs bare passthrough: ${Math.round(pairedRatio * 100)} % (target >= 40 %; median of ${PAIRS} alternating pairs of c=50 runs: ${pairs.map((r) => `${Math.round(r * 100)} %`).join(', ')}; the table's runs: ${Math.round((results.gateway.c50.rps / results.bare.c50.rps) * 100)} %)`,
    `  resident memory: ${memory.rss} MB after the runs, ${memory.peak} MB at its peak under load (target < 150 MB)`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  mkdirSync(join(root, 'tmp'), { recursive: true });
  writeFileSync(join(root, 'tmp', 'bench-results.json'), JSON.stringify({ results, throughput_ratio_pairs: pairs, governance, rss_mb: memory.rss, rss_peak_mb: memory.peak, rss_idle_mb: idle.rss, redis_fallbacks: fallbacks }, null, 2));
  rmSync(dataDir, { recursive: true, force: true });
}

runMain(main);
