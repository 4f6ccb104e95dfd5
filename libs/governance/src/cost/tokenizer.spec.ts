import { MERGE_BUDGET_CHARS, MERGE_SLICE_CHARS, MergeBudget, TokenizerEncoding, leanCount, leanCountAvailable, libraryCount } from './tokenizer';

/** A small deterministic generator, so a failure names a text that can be rebuilt. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

const ALPHABETS = [
  'abcdefghijklmnopqrstuvwxyz',
  'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
  '0123456789',
  ' \t\n\r  \u00a0',
  '.,;:!?\'"()[]{}<>/\\|-_=+*&^%$#@~`',
  'éèàçñöüßøåæœ',
  '日本語の文章と漢字中文句子한국어',
  'абвгдежзийклмнопрстуфхцчшщыэюя',
  'αβγδεζηθικλμνξοπρστυφχψω',
  '😀🚀👍🏽🇫🇷\u200d❤️',
  'مرحبا بالعالم שלום עולם',
  '\u0301\u0308\ufe0f',
];

function randomText(random: () => number, length: number): string {
  let text = '';
  while (text.length < length) {
    const alphabet = [...ALPHABETS[Math.floor(random() * ALPHABETS.length)]];
    const run = 1 + Math.floor(random() * 12);
    for (let i = 0; i < run; i++) text += alphabet[Math.floor(random() * alphabet.length)];
  }
  return text;
}

const SAMPLES = [
  'Summarize the following notes in five bullet points.\n\nThe quarterly planning meeting covered the roadmap.',
  "function add(a, b) {\n  return a + b; // sum\n}\n\nconst x = add(1_000, 2.5e3);\r\n\tif (x) console.log(`x=${x}`);",
  'Special tokens stay text: <|endoftext|> <|im_start|>user<|im_end|> <|fim_prefix|>',
  '   leading and trailing spaces   \n\n\n   ',
  '1234567890 12 345 6789012 3.14159 -42 +7 1e10',
  "Don't won't I'm you're they'll we've she'd IT'S",
  '東京は日本の首都です。北京是中国的首都。서울은 한국의 수도입니다.',
  'Emoji 😀😀😀 flags 🇫🇷🇩🇪 family 👨‍👩‍👧 skin 👍🏽 keycap 1️⃣',
  'a',
  '\n',
  ' ',
  'x'.repeat(5000),
  '🙂'.repeat(300),
  'word '.repeat(1000),
  'lone \ud83d surrogate \ude00 halves',
];

describe('lean token count', () => {
  const encodings: TokenizerEncoding[] = ['o200k_base', 'cl100k_base'];

  it.each(encodings)('%s: the lean path is in use (if not, gpt-tokenizer changed its core: see tokenizer.ts)', (encoding) => {
    expect(leanCountAvailable(encoding)).toBe(true);
  });

  it.each(encodings)('%s: counts what the library counts on written samples', (encoding) => {
    for (const text of SAMPLES) expect({ text, count: leanCount(encoding, text) }).toEqual({ text, count: libraryCount(encoding, text) });
  });

  it.each(encodings)('%s: counts what the library counts on 300 random mixed-script texts', (encoding) => {
    const random = seeded(encoding === 'o200k_base' ? 7 : 11);
    for (let i = 0; i < 300; i++) {
      const text = randomText(random, 1 + Math.floor(random() * 400));
      expect({ text, count: leanCount(encoding, text) }).toEqual({ text, count: libraryCount(encoding, text) });
    }
  });

  it('counts the empty text as zero tokens', () => {
    expect(leanCount('o200k_base', '')).toBe(0);
  });
});

/** One word of `length` random lowercase letters: a single piece of the split pattern, none of it one token. */
function randomWord(random: () => number, length: number): string {
  let word = '';
  while (word.length < length) word += String.fromCharCode(97 + Math.floor(random() * 26));
  return word;
}

describe('merge budget (byte-pair merges are quadratic in a piece and ~1 µs per character)', () => {
  it('counts a long piece slice by slice, within a few tokens of the library', () => {
    const word = randomWord(seeded(3), 5 * MERGE_SLICE_CHARS + 77);
    const budget = new MergeBudget();
    const lean = leanCount('o200k_base', word, budget);
    const library = libraryCount('o200k_base', word);
    expect(budget.mergedChars).toBe(word.length);
    expect(Math.abs(lean - library)).toBeLessThanOrEqual(6);
  });

  it('never cuts a surrogate pair in two at a slice boundary', () => {
    // '!' shifts the emoji by one code unit, so a plain cut every MERGE_SLICE_CHARS would fall inside one.
    const piece = `!${'😀'.repeat(1_500)}`;
    expect(leanCount('o200k_base', piece)).toBe(libraryCount('o200k_base', piece));
  });

  it('merges at most its budget in a 1 MB word, and extrapolates the rest from what it merged', () => {
    const random = seeded(5);
    const word = randomWord(random, 1024 * 1024);
    const budget = new MergeBudget();
    const count = leanCount('o200k_base', word, budget);
    expect(budget.mergedChars).toBeLessThan(MERGE_BUDGET_CHARS + MERGE_SLICE_CHARS);
    // What the library counts on a 16 KB word of the same kind, scaled (the library takes hours on 1 MB).
    const sample = randomWord(random, 16 * 1024);
    const expected = (libraryCount('o200k_base', sample) * word.length) / sample.length;
    expect(Math.abs(count - expected) / expected).toBeLessThan(0.03);
  });

  it('shares one budget across the texts of a count, and stays close on many short random words', () => {
    const random = seeded(9);
    const words = Array.from({ length: 25_000 }, () => randomWord(random, 8)).join(' ');
    const budget = new MergeBudget();
    const count = leanCount('o200k_base', words, budget);
    expect(budget.remainingChars).toBeLessThanOrEqual(0);
    const library = libraryCount('o200k_base', words);
    expect(Math.abs(count - library) / library).toBeLessThan(0.03);
    // The budget is spent: a second text on it merges nothing.
    const before = budget.mergedChars;
    leanCount('o200k_base', randomWord(random, 5_000), budget);
    expect(budget.mergedChars).toBe(before);
  });
});

