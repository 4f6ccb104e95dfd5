import { GatewayHarness, postJson, PROVIDER_KEY, startGateway } from './harness';

interface Family {
  type: string;
  help: boolean;
  samples: { name: string; labels: Record<string, string>; value: number }[];
}

/**
 * A strict reader of the Prometheus text format (0.0.4): every sample belongs to a family declared
 * by `# HELP` and `# TYPE` before it, label values are quoted with the format's escapes, values are
 * numbers. Throws on the first line it cannot read.
 */
function parseExposition(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const familyOf = (name: string): Family | undefined => {
    const exact = families.get(name);
    if (exact) return exact;
    const base = /^(.*)_(bucket|sum|count)$/.exec(name)?.[1];
    const family = base === undefined ? undefined : families.get(base);
    return family && (family.type === 'histogram' || family.type === 'summary') ? family : undefined;
  };
  expect(text.endsWith('\n')).toBe(true);
  for (const line of text.slice(0, -1).split('\n')) {
    if (line === '') continue;
    const meta = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
    if (meta) {
      const family = families.get(meta[2]) ?? { type: '', help: false, samples: [] };
      if (meta[1] === 'HELP') {
        if (family.help) throw new Error(`second HELP for ${meta[2]}`);
        family.help = meta[3].trim().length > 0;
      } else {
        if (family.type) throw new Error(`second TYPE for ${meta[2]}`);
        if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(meta[3])) throw new Error(`bad TYPE line: ${line}`);
        family.type = meta[3];
      }
      families.set(meta[2], family);
      continue;
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{((?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\["\\n])*",?)*)\})? (\S+)$/.exec(line);
    if (!sample) throw new Error(`unreadable line: ${JSON.stringify(line)}`);
    const value = sample[3] === '+Inf' ? Infinity : sample[3] === '-Inf' ? -Infinity : Number(sample[3]);
    if (Number.isNaN(value) && sample[3] !== 'NaN') throw new Error(`not a number: ${line}`);
    const family = familyOf(sample[1]);
    if (!family?.type || !family.help) throw new Error(`sample without HELP and TYPE: ${line}`);
    const labels = Object.fromEntries([...(sample[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    family.samples.push({ name: sample[1], labels, value });
  }
  return families;
}

const seriesKey = (sample: { name: string; labels: Record<string, string> }): string =>
  `${sample.name}{${Object.entries(sample.labels)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${v}`)
    .join(',')}}`;

/**
 * SPEC.md "Health and service endpoints" `/metrics` (issue 3: prom-client), read as a Prometheus
 * server reads it, and held to the naming conventions promtool checks: counters end in `_total` and
 * nothing else does, units are base units (seconds, bytes), histograms are whole.
 */
describe('gateway /metrics exposition', () => {
  let gw: GatewayHarness;
  let families: Map<string, Family>;

  beforeAll(async () => {
    gw = await startGateway({ env: { CIRCUIT_BREAKER_FAILURE_THRESHOLD: '1', CIRCUIT_BREAKER_RECOVERY_SECONDS: '300' } });
    const auth = { 'X-SVC-API-Key': gw.key, 'X-Provider-Key': PROVIDER_KEY };
    // Something in every gateway family: a served request, a refusal, an unpriced model, an opened breaker.
    expect((await postJson(`${gw.url}/v1/chat/completions`, { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'metered' }] }, auth)).status).toBe(200);
    expect((await postJson(`${gw.url}/v1/ollama/chat/completions`, { model: 'some-local-model', messages: [{ role: 'user', content: 'x' }] }, auth)).status).toBe(200);
    expect((await postJson(`${gw.url}/v1/chat/completions`, { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] })).status).toBe(401);
    gw.mock.setBehavior({ match: { format: 'openai' }, fail: { status: 503, times: 1 } });
    expect((await postJson(`${gw.url}/v1/groq/chat/completions`, { model: 'llama-3.3-70b-versatile', messages: [{ role: 'user', content: 'x' }] }, auth)).status).toBe(503);
    gw.mock.reset();
    const res = await fetch(`${gw.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    families = parseExposition(await res.text());
  });
  afterAll(() => gw.stop());

  it('declares every family SPEC.md and issue 3 list, with its type', () => {
    const types = Object.fromEntries([...families].filter(([name]) => /^svc_gateway_(requests|request_duration|governance|cost|unpriced|circuit|usage)/.test(name)).map(([name, family]) => [name, family.type]));
    expect(types).toEqual({
      svc_gateway_requests_total: 'counter',
      svc_gateway_request_duration_seconds: 'histogram',
      svc_gateway_governance_blocks_total: 'counter',
      svc_gateway_cost_usd_total: 'counter',
      svc_gateway_unpriced_model_requests_total: 'counter',
      svc_gateway_circuit_breaker_state_changes_total: 'counter',
      svc_gateway_usage_records_dropped_total: 'counter',
    });
    // Both reasons from the start, at 0 (an alert on their increase sees the first drop).
    expect(families.get('svc_gateway_usage_records_dropped_total')?.samples.map((s) => [s.labels.reason, s.value])).toEqual([['refused', 0], ['buffer_full', 0]]);
    expect(families.get('svc_gateway_requests_total')?.samples.map((s) => s.labels)).toEqual(
      expect.arrayContaining([
        { provider: 'openai', model: 'gpt-4o-mini', status: '200' },
        { provider: 'unknown', model: 'unknown', status: '401' },
        { provider: 'groq', model: 'llama-3.3-70b-versatile', status: '503' },
      ]),
    );
    expect(families.get('svc_gateway_circuit_breaker_state_changes_total')?.samples).toEqual([{ name: 'svc_gateway_circuit_breaker_state_changes_total', labels: { provider: 'groq', state: 'open' }, value: 1 }]);
  });

  it('names follow the Prometheus conventions: `_total` only on counters, base units, one prefix', () => {
    const problems: string[] = [];
    for (const [name, family] of families) {
      if (!name.startsWith('svc_gateway_')) problems.push(`${name}: not under the svc_gateway_ prefix`);
      if (!/^[a-z][a-z0-9_]*$/.test(name)) problems.push(`${name}: not snake_case`);
      if (family.type === 'counter' && !name.endsWith('_total')) problems.push(`${name}: a counter without _total`);
      if (family.type !== 'counter' && name.endsWith('_total')) problems.push(`${name}: a ${family.type} named _total`);
      if (/_(ms|milliseconds|microseconds|ns|minutes|hours|days|kb|mb|gb|kilobytes|megabytes|percent)(_|$)/.test(name)) problems.push(`${name}: not a base unit`);
      if (family.type === 'histogram' && !/_(seconds|bytes)$/.test(name)) problems.push(`${name}: a histogram without a base unit`);
    }
    expect(problems).toEqual([]);
  });

  it('has no duplicate series, every value a number, counters never negative', () => {
    const seen = new Set<string>();
    const duplicates: string[] = [];
    for (const family of families.values()) {
      for (const sample of family.samples) {
        const key = seriesKey(sample);
        if (seen.has(key)) duplicates.push(key);
        seen.add(key);
        if (family.type === 'counter') expect({ key, negative: sample.value < 0 }).toEqual({ key, negative: false });
      }
    }
    expect(duplicates).toEqual([]);
  });

  it('histograms are whole: increasing `le` buckets ending at +Inf, which equals `_count`, and a `_sum`', () => {
    for (const [name, family] of families) {
      if (family.type !== 'histogram') continue;
      const groups = new Map<string, { buckets: [number, number][]; count?: number; sum?: number }>();
      for (const sample of family.samples) {
        const { le, ...rest } = sample.labels;
        const key = seriesKey({ name, labels: rest });
        const group = groups.get(key) ?? { buckets: [] };
        if (sample.name === `${name}_bucket`) group.buckets.push([le === '+Inf' ? Infinity : Number(le), sample.value]);
        else if (sample.name === `${name}_count`) group.count = sample.value;
        else if (sample.name === `${name}_sum`) group.sum = sample.value;
        groups.set(key, group);
      }
      expect(groups.size).toBeGreaterThan(0);
      for (const [key, group] of groups) {
        const bounds = group.buckets.map(([le]) => le);
        const counts = group.buckets.map(([, count]) => count);
        expect({ key, increasingBounds: bounds.every((le, i) => i === 0 || le > bounds[i - 1]), lastInf: bounds.at(-1) === Infinity }).toEqual({ key, increasingBounds: true, lastInf: true });
        expect({ key, cumulative: counts.every((c, i) => i === 0 || c >= counts[i - 1]) }).toEqual({ key, cumulative: true });
        expect({ key, count: group.count, sum: typeof group.sum }).toEqual({ key, count: counts.at(-1), sum: 'number' });
      }
    }
  });
});
