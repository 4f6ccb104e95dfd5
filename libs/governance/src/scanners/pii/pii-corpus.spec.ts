import { BACKGROUND, NEAR_MISSES, POSITIVES } from '../__fixtures__/pii-corpus';
import { detectPii } from './scan-pii';
import { PII_TYPES, PiiType } from './types';

interface Tally {
  tp: number;
  fp: number;
  fn: number;
}

const rate = (hits: number, total: number): number => (total === 0 ? 1 : hits / total);

describe('PII corpus', () => {
  const corpus = [...POSITIVES, ...NEAR_MISSES, ...BACKGROUND];
  const detected = corpus.map((entry) => new Set(detectPii(entry.text).map((found) => found.type)));
  const tallies = new Map<PiiType, Tally>(Object.keys(PII_TYPES).map((type) => [type as PiiType, { tp: 0, fp: 0, fn: 0 }]));
  corpus.forEach((entry, i) => {
    for (const [type, tally] of tallies) {
      const expected = entry.types.includes(type);
      const found = detected[i].has(type);
      if (expected && found) tally.tp++;
      if (!expected && found) tally.fp++;
      if (expected && !found) tally.fn++;
    }
  });
  const total = [...tallies.values()].reduce((sum, t) => ({ tp: sum.tp + t.tp, fp: sum.fp + t.fp, fn: sum.fn + t.fn }), { tp: 0, fp: 0, fn: 0 });

  it('prints precision and recall per type', () => {
    const rows = [...tallies].map(
      ([type, t]) =>
        `${type.padEnd(20)} tp=${String(t.tp).padStart(3)} fp=${String(t.fp).padStart(2)} fn=${String(t.fn).padStart(2)}  precision=${rate(t.tp, t.tp + t.fp).toFixed(3)} recall=${rate(t.tp, t.tp + t.fn).toFixed(3)}`,
    );
    rows.push(
      `${'overall'.padEnd(20)} tp=${String(total.tp).padStart(3)} fp=${String(total.fp).padStart(2)} fn=${String(total.fn).padStart(2)}  precision=${rate(total.tp, total.tp + total.fp).toFixed(3)} recall=${rate(total.tp, total.tp + total.fn).toFixed(3)}`,
    );
    console.log(
      `PII corpus: ${POSITIVES.length} positives, ${NEAR_MISSES.length} near-miss negatives, ${BACKGROUND.length} background texts\n${rows.join('\n')}`,
    );
    expect(tallies.size).toBe(19);
  });

  it('covers every type with at least three positives', () => {
    const thin = [...tallies].filter(([, tally]) => tally.tp + tally.fn < 3).map(([type]) => type);
    expect(thin).toEqual([]);
  });

  it('reaches precision and recall of at least 0.95 overall', () => {
    expect(rate(total.tp, total.tp + total.fp)).toBeGreaterThanOrEqual(0.95);
    expect(rate(total.tp, total.tp + total.fn)).toBeGreaterThanOrEqual(0.95);
  });

  it('finds every positive', () => {
    const missed = POSITIVES.filter((entry, i) => entry.types.some((type) => !detected[i].has(type))).map((entry) => entry.text);
    expect(missed).toEqual([]);
  });

  it('reports no near-miss negative as the type it resembles', () => {
    const offset = POSITIVES.length;
    const wrong = NEAR_MISSES.flatMap((entry, i) =>
      (entry.notTypes ?? []).filter((type) => detected[offset + i].has(type)).map((type) => `${type}: ${entry.text}`),
    );
    expect(wrong).toEqual([]);
  });
});
