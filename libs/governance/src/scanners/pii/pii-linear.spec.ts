import { ONE_MB, adversarialInputs, formatTiming, measure } from '../__fixtures__/adversarial';
import { PII_DETECTORS, scanPii } from './scan-pii';

/**
 * Linear time: every PII pattern against adversarial inputs (long runs and repeated near-matches of
 * each pattern). The assertion is about growth, not speed, so it holds on any machine: four times
 * the input may cost at most ten times the CPU (fastest of three runs) (linear is 4×; a backtracking pattern is 16× or
 * worse). The absolute figures for 1 MB (target under 50 ms) are printed, as a benchmark would.
 */
const MAX_GROWTH = 10;
// Absorbs GC and scheduling noise on small bases; catastrophic backtracking costs seconds, not this.
const SLACK_MS = 15;
const QUARTER = ONE_MB / 4;

describe('PII scanner on 1 MB adversarial inputs', () => {
  it('scans each input in linear time', () => {
    const rows: string[] = [];
    const superlinear: string[] = [];
    const quarters = new Map(adversarialInputs(QUARTER).map(({ name, text }) => [name, text]));
    for (const { name, text } of adversarialInputs()) {
      expect(text.length).toBe(ONE_MB);
      const scan = (input: string) => () => scanPii([{ path: 'messages[0].content', text: input }], { action: 'block' });
      const quarter = measure(scan(quarters.get(name) as string));
      const full = measure(scan(text));
      rows.push(`${name.padEnd(24)} 1 MB ${formatTiming(full)} | 256 KB ${formatTiming(quarter)}`);
      if (full.minCpu > quarter.minCpu * MAX_GROWTH + SLACK_MS) superlinear.push(`${name}: ${quarter.minCpu.toFixed(1)} → ${full.minCpu.toFixed(1)} ms cpu`);
    }
    console.log(`PII scanner (${PII_DETECTORS.length} detectors), medians of 3:\n${rows.join('\n')}`);
    expect(superlinear).toEqual([]);
  }, 180_000);

  it('grows linearly with input size', () => {
    const unit = '4111 1111 1111 111 a.b@c. 123-45-678 DE89 3704 passport sk-abcdefghijklmnopqr 500 mg ';
    const small = unit.repeat(Math.ceil(ONE_MB / 4 / unit.length));
    const large = unit.repeat(Math.ceil(ONE_MB / unit.length));
    const smallT = measure(() => scanPii([{ path: 'p', text: small }], { action: 'block' }));
    const largeT = measure(() => scanPii([{ path: 'p', text: large }], { action: 'block' }));
    console.log(`PII scanner mixed near-misses: 256 KB ${formatTiming(smallT)}; 1 MB ${formatTiming(largeT)}`);
    expect(largeT.minCpu).toBeLessThan(smallT.minCpu * MAX_GROWTH + SLACK_MS);
  }, 60_000);
});
