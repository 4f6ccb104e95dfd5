import { ONE_MB, adversarialInputs, formatTiming, measure } from '../__fixtures__/adversarial';
import { PII_DETECTORS, scanPii } from './scan-pii';

/**
 * Linear time: every PII pattern against adversarial inputs (long runs and repeated near-matches of
 * each pattern). The assertion is about growth, not speed, so it holds on any machine: four times
 * the input may cost at most ten times the CPU (fastest of three runs) (linear is 4×; a backtracking
 * pattern is 16× or worse). 256 KB against 64 KB shows backtracking as surely as 1 MB would, at a
 * quarter of the cost; the 1 MB figures against the 50 ms target are `npm run bench:scanners`'s.
 */
const MAX_GROWTH = 10;
// Absorbs GC (its helper threads count as process CPU) and a busy machine on small bases: tens of ms
// were seen in CI. Catastrophic backtracking on 256 KB costs seconds, not this.
const SLACK_MS = 60;
const FULL = ONE_MB / 4;
const QUARTER = FULL / 4;

describe('PII scanner on adversarial inputs', () => {
  it('scans each input in linear time', () => {
    const rows: string[] = [];
    const superlinear: string[] = [];
    const quarters = new Map(adversarialInputs(QUARTER).map(({ name, text }) => [name, text]));
    for (const { name, text } of adversarialInputs(FULL)) {
      expect(text.length).toBe(FULL);
      const scan = (input: string) => () => scanPii([{ path: 'messages[0].content', text: input }], { action: 'block' });
      const quarter = measure(scan(quarters.get(name) as string));
      const full = measure(scan(text));
      rows.push(`${name.padEnd(24)} 256 KB ${formatTiming(full)} | 64 KB ${formatTiming(quarter)}`);
      if (full.minCpu > quarter.minCpu * MAX_GROWTH + SLACK_MS) superlinear.push(`${name}: ${quarter.minCpu.toFixed(1)} → ${full.minCpu.toFixed(1)} ms cpu`);
    }
    console.log(`PII scanner (${PII_DETECTORS.length} detectors), medians of 3:\n${rows.join('\n')}`);
    expect(superlinear).toEqual([]);
  }, 180_000);

  it('grows linearly with input size', () => {
    const unit = '4111 1111 1111 111 a.b@c. 123-45-678 DE89 3704 passport sk-abcdefghijklmnopqr 500 mg ';
    const small = unit.repeat(Math.ceil(QUARTER / unit.length));
    const large = unit.repeat(Math.ceil(FULL / unit.length));
    const smallT = measure(() => scanPii([{ path: 'p', text: small }], { action: 'block' }));
    const largeT = measure(() => scanPii([{ path: 'p', text: large }], { action: 'block' }));
    console.log(`PII scanner mixed near-misses: 64 KB ${formatTiming(smallT)}; 256 KB ${formatTiming(largeT)}`);
    expect(largeT.minCpu).toBeLessThan(smallT.minCpu * MAX_GROWTH + SLACK_MS);
  }, 60_000);
});
