import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readRanks } from './bpe-ranks';

const encodings = ['o200k_base', 'cl100k_base'] as const;

describe('readRanks', () => {
  it.each(encodings)('%s: reads exactly the array the library module exports (if not, gpt-tokenizer changed its ranks files)', (encoding) => {
    const modulePath = require.resolve(`gpt-tokenizer/cjs/bpeRanks/${encoding}`);
    const library = (require(modulePath) as { default: (string | number[])[] }).default;
    const read = readRanks(modulePath);
    expect(read).not.toBeNull();
    expect(read).toHaveLength(library.length);
    const differing = library.flatMap((entry, rank) => (JSON.stringify(entry) === JSON.stringify(read?.[rank]) ? [] : [rank]));
    expect(differing).toEqual([]);
  });

  describe('files of another shape', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'bpe-ranks-'));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    const write = (name: string, text: string) => {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    };

    it('turns the JavaScript-only escapes and raw control characters into the same strings', () => {
      const path = write('escapes.js', 'const c0 = [\n\t"\\0\\v\\x41\\x7f",\n\t"tab\there\u0001",\n\t"\\"\\\\\\n\\u00e9",\n\t[1, 2]\n];\nconst bpe = c0.concat();\n');
      expect(readRanks(path)).toEqual(['\0\u000bA\u007f', 'tab\there\u0001', '"\\\né', [1, 2]]);
    });

    it('concatenates the chunks in order', () => {
      const path = write('chunks.js', 'const c0 = [\n\t"a",\n\t"b"\n];\nconst c1 = [\n\t"c"\n];\nconst bpe = c0.concat(c1);\n');
      expect(readRanks(path)).toEqual(['a', 'b', 'c']);
    });

    it.each([
      ['no chunks', 'module.exports = ["a"];\n'],
      ['no concatenation', 'const c0 = [\n\t"a"\n];\nexports.default = c0;\n'],
      ['a literal that is not JSON', 'const c0 = [\n\t\'a\'\n];\nconst bpe = c0.concat();\n'],
    ])('returns null for %s, so the library module is required instead', (_, text) => {
      expect(readRanks(write('other.js', text))).toBeNull();
    });

    it('returns null for a missing file', () => {
      expect(readRanks(join(dir, 'missing.js'))).toBeNull();
    });
  });
});
