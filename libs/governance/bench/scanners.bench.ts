/**
 * `npm run bench:scanners`: the PII scanner (stage 4) and the safety stages (4.5, 4.6, 4.7) on every
 * 1 MB adversarial input of the linear-time tests, against the 50 ms target of issue 4. Prints the
 * median CPU and wall time of three runs per input and the worst of each stage.
 * Usage: node --expose-gc -r @swc-node/register libs/governance/bench/scanners.bench.ts
 * (part of the governance project, so it imports the scanners and the fixture relatively; it is
 * type-checked with the workspace and is neither a Jest spec nor part of any build).
 */
// The inputs are the linear-time tests' own, so the bench and the tests look at the same shapes.
import { ONE_MB, Timing, adversarialInputs, formatTiming, measure } from '../src/scanners/__fixtures__/adversarial';
import { scanPii } from '../src/scanners/pii/scan-pii';
import { classifyFindings } from '../src/scanners/safety/classifier';
import { scanContentSafety } from '../src/scanners/safety/content-safety';
import { scanSecurity } from '../src/scanners/safety/security-scanner';
import { SafetyFinding } from '../src/scanners/safety/types';

const TARGET_MS = 50;

function main(): void {
  const worst: Record<string, { name: string; timing: Timing }> = {};
  const note = (stage: string, name: string, timing: Timing) => {
    if (!worst[stage] || worst[stage].timing.cpu < timing.cpu) worst[stage] = { name, timing };
    return `${stage} ${formatTiming(timing)}`;
  };
  console.log(`Scanners on 1 MB adversarial inputs, medians of 3 (target ${TARGET_MS} ms):`);
  for (const { name, text } of adversarialInputs(ONE_MB)) {
    const fresh = () => [{ path: 'messages[0].content', text, role: 'user' }];
    const texts = fresh();
    const findings: SafetyFinding[] = [...scanContentSafety(texts).findings, ...scanSecurity(texts).findings];
    const cells = [
      note('4', name, measure(() => scanPii(fresh(), { action: 'block' }))),
      note('4.5', name, measure(() => scanContentSafety(fresh()))),
      note('4.6', name, measure(() => scanSecurity(fresh()))),
      note('4.7', name, measure(() => classifyFindings(texts, findings))),
    ];
    console.log(`  ${name.padEnd(28)} ${cells.join(' | ')}`);
  }
  console.log('Worst per stage:');
  for (const [stage, { name, timing }] of Object.entries(worst)) {
    const verdict = timing.cpu <= TARGET_MS ? 'meets' : 'misses';
    console.log(`  stage ${stage.padEnd(4)} ${formatTiming(timing)} (${name}) ${verdict} the ${TARGET_MS} ms target`);
  }
}

main();
