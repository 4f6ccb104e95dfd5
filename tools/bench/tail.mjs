#!/usr/bin/env node
// `npm run bench:tail`: where the gateway's c=1 latency tail comes from. Runs one request loop
// (c=1, non-streaming) against the mock directly and through the gateway's production build, with
// the gateway's main thread profiled (tools/bench/tail-probe.cjs), then lines the slowest requests
// up with what the main thread was doing: garbage-collection pauses, and stretches of back-to-back
// work (no idle sample between them). Prints the latency distribution of both, what share of the
// slowest requests overlapped a pause or a long stretch, and which functions fill the long stretches
// against their share of all work. Build first (`npm run bench` builds; or `npx nx build gateway`).
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { freePort, root, runMain, startMockProvider } from '../processes.mjs';
import { benchRedis, quantile, seededDataDir, startGateway } from './setup.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/** The slowest share of the gateway's requests examined. */
const SLOWEST = 0.02;
/** A stretch of main-thread work at least this long (ms) counts as long. */
const LONG_MS = 2;
const PROBE_FILE = join(tmpdir(), `svc-tail-probe-${process.pid}.json`);

const out = (line = '') => process.stdout.write(`${line}\n`);
const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello to the benchmark' }], max_tokens: 64 });

/** c=1 request loop for `seconds`; each sample is [epoch ms at the start, latency ms]. */
async function loop(url, headers, seconds) {
  const dispatcher = new Agent({ connections: 1 });
  const samples = [];
  const until = Date.now() + seconds * 1000;
  while (Date.now() < until) {
    const started = performance.now();
    const res = await request(url, { method: 'POST', headers, body, dispatcher });
    await res.body.text();
    if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode}`);
    samples.push([performance.timeOrigin + started, performance.now() - started]);
  }
  await dispatcher.close();
  return samples;
}

const BUCKETS = [0.5, 1, 1.5, 2, 3, 4, 6, 8, 12, 20, Infinity];
function distribution(name, samples) {
  const sorted = samples.map(([, ms]) => ms).sort((a, b) => a - b);
  const q = (p) => quantile(sorted, p).toFixed(3);
  out(`${name.padEnd(8)} ${String(sorted.length).padStart(6)} requests  p50 ${q(0.5)}  p90 ${q(0.9)}  p99 ${q(0.99)}  p99.9 ${q(0.999)} ms`);
  const counts = BUCKETS.map((limit, i) => sorted.filter((ms) => ms < limit && ms >= (BUCKETS[i - 1] ?? 0)).length);
  out(`         ${BUCKETS.map((limit, i) => `<${limit === Infinity ? '∞' : limit}: ${counts[i]}`).join('  ')}`);
  return sorted;
}

/** Stretches of main-thread work from the profile: runs of samples with no `(idle)` sample between them. */
function stretches({ profile, epochOffsetMs }) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const idle = (id) => nodes.get(id).callFrame.functionName === '(idle)';
  const result = [];
  let at = profile.startTime;
  let current;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i];
    if (idle(id)) {
      if (current) result.push({ ...current, end: at / 1000 + epochOffsetMs });
      current = undefined;
    } else {
      current ??= { start: at / 1000 + epochOffsetMs, ids: [] };
      current.ids.push(id);
    }
  });
  return { result, nodes };
}

function frameName(node) {
  const { functionName, url, lineNumber } = node.callFrame;
  const file = url ? ` ${url.split('/').pop()}:${lineNumber + 1}` : '';
  return `${functionName || '(anonymous)'}${file}`;
}

/** Share of samples per function (self time) in `list`, the top `count`. */
function topFunctions(list, nodes, count) {
  const tally = new Map();
  let total = 0;
  for (const stretch of list) {
    for (const id of stretch.ids) {
      const name = frameName(nodes.get(id));
      tally.set(name, (tally.get(name) ?? 0) + 1);
      total += 1;
    }
  }
  return { total, top: [...tally].sort((a, b) => b[1] - a[1]).slice(0, count).map(([name, n]) => [name, n / total]) };
}

async function main() {
  const { url: redisUrl } = await benchRedis();
  const [mockPort, gatewayPort] = [await freePort(), await freePort()];
  await startMockProvider(mockPort);
  const mock = `http://127.0.0.1:${mockPort}`;
  const { dataDir, key } = seededDataDir();
  const probe = join(root, 'tools', 'bench', 'tail-probe.cjs');
  const gateway = await startGateway({ port: gatewayPort, dataDir, redisUrl, mockUrl: mock, nodeArgs: ['-r', probe, ...(process.env.BENCH_GATEWAY_NODE_ARGS ?? '').split(' ').filter(Boolean)], env: { TAIL_PROBE_FILE: PROBE_FILE } });
  const direct = { url: `${mock}/v1/chat/completions`, headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' } };
  const viaGateway = { url: `http://127.0.0.1:${gatewayPort}/v1/chat/completions`, headers: { 'content-type': 'application/json', 'x-svc-api-key': key, 'x-provider-key': 'sk-bench' } };
  for (const target of [direct, viaGateway]) await loop(target.url, target.headers, 2); // warm up

  out(`c=1 non-stream, ${SECONDS} s each (latency in ms)`);
  const directSorted = distribution('direct', await loop(direct.url, direct.headers, SECONDS));
  process.kill(gateway.pid, 'SIGUSR2');
  await new Promise((resolve) => setTimeout(resolve, 300));
  const samples = await loop(viaGateway.url, viaGateway.headers, SECONDS);
  process.kill(gateway.pid, 'SIGUSR2');
  const sorted = distribution('gateway', samples);
  out(`added: p50 ${(quantile(sorted, 0.5) - quantile(directSorted, 0.5)).toFixed(3)} ms, p99 ${(quantile(sorted, 0.99) - quantile(directSorted, 0.99)).toFixed(3)} ms`);

  let probed;
  for (let waited = 0; !probed && waited < 30_000; waited += 200) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    try {
      probed = JSON.parse(readFileSync(PROBE_FILE, 'utf8'));
    } catch {
      // not written yet
    }
  }
  if (!probed?.profile) throw new Error(`the gateway's probe wrote no profile to ${PROBE_FILE}${probed?.error ? `: ${probed.error}` : ''}`);
  rmSync(PROBE_FILE, { force: true });

  const { result: all, nodes } = stretches(probed);
  const long = all.filter((s) => s.end - s.start >= LONG_MS);
  const threshold = quantile(sorted, 1 - SLOWEST);
  const slow = samples.filter(([, ms]) => ms >= threshold);
  const overlaps = (start, end, from, to) => from < end && to > start;
  const withPause = slow.filter(([at, ms]) => probed.pauses.some((p) => overlaps(at, at + ms, p.at, p.at + p.ms))).length;
  const withLong = slow.filter(([at, ms]) => long.some((s) => overlaps(at, at + ms, s.start, s.end))).length;
  const pct = (n, of) => `${((100 * n) / Math.max(1, of)).toFixed(0)} %`;
  const pauseMs = probed.pauses.map((p) => p.ms).sort((a, b) => a - b);
  out();
  out(`gateway main thread: ${all.length} stretches of work, ${long.length} of ${LONG_MS} ms or more; ${pauseMs.length} GC pauses (median ${(quantile(pauseMs, 0.5) ?? 0).toFixed(2)} ms, longest ${(pauseMs.at(-1) ?? 0).toFixed(2)} ms)`);
  out(`slowest ${SLOWEST * 100} % of gateway requests (${slow.length}, ${threshold.toFixed(3)} ms or more): ${pct(withPause, slow.length)} overlap a GC pause, ${pct(withLong, slow.length)} overlap a stretch of ${LONG_MS} ms or more`);
  const inLong = topFunctions(long, nodes, 15);
  const overall = new Map(topFunctions(all, nodes, Infinity).top);
  out();
  out(`functions by share of the samples in stretches of ${LONG_MS} ms or more (${inLong.total} samples), against their share of all work:`);
  for (const [name, share] of inLong.top) out(`  ${(100 * share).toFixed(1).padStart(5)} %  (all work ${(100 * (overall.get(name) ?? 0)).toFixed(1).padStart(4)} %)  ${name}`);
  rmSync(dataDir, { recursive: true, force: true });
}

runMain(main);
