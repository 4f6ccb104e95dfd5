import { readFileSync } from 'node:fs';

/**
 * gpt-tokenizer ships each encoding's byte-pair ranks as a JavaScript module: a few `const cN = [...]`
 * array literals of some 200,000 strings. Requiring it makes V8 parse and compile that literal, which
 * leaves some 16 MB of memory behind in the gateway (C heap the parser used, and the literal's
 * boilerplate). `readRanks` reads the same file as text and parses the arrays with `JSON.parse`
 * instead, which keeps only the strings. The literals are JSON but for a few JavaScript-only string
 * escapes (`\0`, `\v`, `\xHH`) and raw control characters inside strings, which are rewritten as
 * `\uXXXX` first. The result is the module's own array (the tokenizer spec compares them entry by
 * entry); if the file ever has another shape, `readRanks` returns null and the caller requires the
 * module as before.
 */
export function readRanks(modulePath: string): (string | number[])[] | null {
  let text: string;
  try {
    text = readFileSync(modulePath, 'utf8');
  } catch {
    return null;
  }
  // The module exports its chunks concatenated in order (`c0.concat(c1, ...)`); any other shape is not read.
  if (!/^const bpe = c0\.concat\(/m.test(text)) return null;
  const chunks: (string | number[])[][] = [];
  for (const match of text.matchAll(/^const c\d+ = (\[[\s\S]*?^\]);$/gm)) {
    try {
      const chunk: unknown = JSON.parse(javascriptStringsToJson(match[1]));
      if (!Array.isArray(chunk)) return null;
      chunks.push(chunk as (string | number[])[]);
    } catch {
      return null;
    }
  }
  return chunks.length > 0 ? chunks.flat(1) : null;
}

const hex4 = (code: number) => `\\u${code.toString(16).padStart(4, '0')}`;

/** Rewrites the JavaScript-only parts of double-quoted string literals in `source` as JSON escapes. */
function javascriptStringsToJson(source: string): string {
  const parts: string[] = [];
  let copied = 0;
  let inString = false;
  for (let i = 0; i < source.length; i++) {
    const code = source.charCodeAt(i);
    if (!inString) {
      if (code === 0x22) inString = true;
      continue;
    }
    if (code === 0x22) {
      inString = false;
    } else if (code === 0x5c) {
      const next = source[i + 1];
      const replacement = next === '0' ? hex4(0) : next === 'v' ? hex4(0x0b) : next === 'x' ? `\\u00${source.slice(i + 2, i + 4)}` : null;
      const length = next === 'x' ? 4 : 2;
      if (replacement !== null) {
        parts.push(source.slice(copied, i), replacement);
        copied = i + length;
      }
      i += length - 1;
    } else if (code < 0x20) {
      parts.push(source.slice(copied, i), hex4(code));
      copied = i + 1;
    }
  }
  parts.push(source.slice(copied));
  return parts.join('');
}
