// Preloaded into the gateway by `npm run bench:tail` (node -r): on the first SIGUSR2 it starts V8's
// sampling profiler (100 µs) and a record of garbage-collection pauses, on the second it writes
// both to TAIL_PROBE_FILE. Timestamps are epoch milliseconds, so the load generator can line its
// slow requests up with what the gateway's main thread was doing.
const { writeFileSync } = require('node:fs');
const { Session } = require('node:inspector');
const { PerformanceObserver, performance } = require('node:perf_hooks');

const session = new Session();
session.connect();
const pauses = [];
const observer = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) pauses.push({ at: performance.timeOrigin + entry.startTime, ms: entry.duration, kind: entry.detail?.kind });
});
let recording = false;

process.on('SIGUSR2', () => {
  if (!recording) {
    recording = true;
    observer.observe({ entryTypes: ['gc'] });
    session.post('Profiler.enable', () => session.post('Profiler.setSamplingInterval', { interval: 100 }, () => session.post('Profiler.start')));
    return;
  }
  recording = false;
  observer.disconnect();
  session.post('Profiler.stop', (error, result) => {
    // The profile counts monotonic µs (CLOCK_MONOTONIC, as process.hrtime does): epoch ms = µs / 1000 + offset.
    const epochOffsetMs = performance.timeOrigin + performance.now() - Number(process.hrtime.bigint()) / 1e6;
    writeFileSync(process.env.TAIL_PROBE_FILE, JSON.stringify({ error: error?.message, profile: result?.profile, epochOffsetMs, pauses }));
  });
});
