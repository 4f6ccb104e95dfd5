import { TokenizerEncoding, leanCount, leanCountAvailable, libraryCount } from './tokenizer';

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
