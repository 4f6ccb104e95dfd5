import { readRanks } from './bpe-ranks';
import { PackedRanks, mergedTokenCount, utf8Into } from './packed-ranks';

const bytesOf = (text: string) => new TextEncoder().encode(text);

/** Tokens byte-pair merging makes of a text with `ranks`. */
function tokens(ranks: PackedRanks, text: string): number {
  const run = bytesOf(text);
  return mergedTokenCount(ranks, run, run.length, new Int32Array(run.length + 1), new Int32Array(run.length + 1));
}

describe('PackedRanks', () => {
  it.each(['o200k_base', 'cl100k_base'])('%s: finds every rank of gpt-tokenizer by its bytes, and nothing else', (encoding) => {
    const ranks = readRanks(require.resolve(`gpt-tokenizer/cjs/bpeRanks/${encoding}`));
    expect(ranks).not.toBeNull();
    const packed = PackedRanks.from(ranks ?? []);
    const wrong: number[] = [];
    for (let rank = 0; rank < (ranks ?? []).length; rank++) {
      const value = (ranks ?? [])[rank];
      const run = typeof value === 'string' ? bytesOf(value) : Uint8Array.from(value);
      if (packed.rankOf(run, 0, run.length) !== rank) wrong.push(rank);
    }
    expect(wrong).toEqual([]);
    expect(packed.maxTokenBytes).toBe(128);
    // Bytes that are no token: longer than any, and a run no rank has.
    expect(packed.rankOf(bytesOf('x'.repeat(129)), 0, 129)).toBe(-1);
    expect(packed.rankOf(bytesOf('qzxqzxqzxqzx'), 0, 12)).toBe(-1);
  });

  it('looks up a run inside a larger buffer, string and byte ranks alike', () => {
    const packed = PackedRanks.from(['a', 'b', 'é', [0xff], [0xff, 0xfe], 'ab']);
    const run = Uint8Array.from([0x00, 0x61, 0x62, 0xc3, 0xa9, 0xff, 0xfe]);
    expect(packed.rankOf(run, 1, 2)).toBe(0);
    expect(packed.rankOf(run, 1, 3)).toBe(5);
    expect(packed.rankOf(run, 3, 5)).toBe(2);
    expect(packed.rankOf(run, 5, 6)).toBe(3);
    expect(packed.rankOf(run, 5, 7)).toBe(4);
    expect(packed.rankOf(run, 0, 1)).toBe(-1);
    expect(packed.rankOf(run, 2, 2)).toBe(-1);
  });

  it('skips unused ranks and keeps the first of two ranks with the same bytes', () => {
    const packed = PackedRanks.from(['a', null, 'b', 'a', undefined, [0x62, 300]]);
    expect(packed.rankOf(bytesOf('a'), 0, 1)).toBe(0);
    expect(packed.rankOf(bytesOf('b'), 0, 1)).toBe(2);
    expect(packed.maxTokenBytes).toBe(1);
  });
});

describe('utf8Into', () => {
  it.each([
    ['ascii', 'plain text 123'],
    ['two-byte', 'éñß'],
    ['three-byte', '日本語€'],
    ['surrogate pairs', '😀🇫🇷👍🏽'],
    ['a lone high surrogate', 'a\ud83db'],
    ['a lone low surrogate', 'a\ude00b'],
    ['a high surrogate at the end', 'end\ud83d'],
  ])('writes %s as TextEncoder does', (_, text) => {
    const out = new Uint8Array(3 * text.length);
    const length = utf8Into(text, 0, text.length, out);
    expect(Array.from(out.subarray(0, length))).toEqual(Array.from(bytesOf(text)));
  });

  it('writes only the range asked for, from the start of the buffer', () => {
    const out = new Uint8Array(16);
    const length = utf8Into('xxé😀yy', 2, 5, out);
    expect(Array.from(out.subarray(0, length))).toEqual(Array.from(bytesOf('é😀')));
  });
});

describe('mergedTokenCount', () => {
  // Ranks: single letters, then pairs, then a triple; a lower rank merges first.
  const packed = PackedRanks.from(['a', 'b', 'c', 'd', 'bc', 'ab', 'abc', 'cd']);

  it('merges the pair of lowest rank first', () => {
    // bc (4) merges before ab (5); a|bc then merges into abc (6).
    expect(tokens(packed, 'abc')).toBe(1);
    // bc (4) first leaves a|bc|d; "abc" (6) then merges, "cd" cannot (c is taken): abc|d.
    expect(tokens(packed, 'abcd')).toBe(2);
  });

  it('merges the leftmost of equal pairs first and stops when no pair is a token', () => {
    const same = PackedRanks.from(['a', 'b', 'aa', 'aab']);
    // Both "aa" pairs rank 2: the leftmost merges, aa|a|b, and neither "aaa" nor "ab" is a token.
    // (Merging the right one first would give a|aa|b, then a|aab: 2.)
    expect(tokens(same, 'aaab')).toBe(3);
    expect(tokens(packed, 'dcba')).toBe(4);
  });

  it('counts a run of one byte, and of none', () => {
    expect(tokens(packed, 'a')).toBe(1);
    expect(tokens(packed, '')).toBe(0);
  });
});
