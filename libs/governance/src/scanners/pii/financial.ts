import { alnumAt, isAlnumCode, matchSpans } from '../text-utils';
import { IBAN_LENGTHS, cardNetwork, luhnValid } from './validators';
import { PiiDetector, PiiSpan } from './types';

/**
 * Card numbers: 13-19 plain digits, or 4-4-4-4 / 4-6-5 groups with one consistent separator
 * (space or dash), not part of a longer number. Kept only for Visa, Mastercard, Amex and Discover
 * prefixes and lengths with a valid Luhn checksum.
 */
// The first digit comes before the look-behinds (`(?<!\d)` at the start): V8 then skips every
// position that is not a digit, where a leading look-behind is evaluated everywhere (about twice as slow).
const CARD = /\d(?<!\d\d)(?<!\d[ -]\d)(?:\d{12,18}|\d{3}([ -])\d{4}\1\d{4}\1\d{4}|\d{3}([ -])\d{6}\2\d{5})(?!\d|[ -]\d)/g;

export const creditCardDetector: PiiDetector = {
  type: 'credit_card',
  find: (text) =>
    matchSpans(CARD, text, (m) => {
      const first = m[0].charCodeAt(0);
      if (first < 50 || first > 54) return false; // networks start with 2-6
      const digits = m[1] === undefined && m[2] === undefined ? m[0] : m[0].replace(/[ -]/g, '');
      return cardNetwork(digits) !== null && luhnValid(digits);
    }),
};

/** Start of an IBAN: country letters and check digits, not inside a longer token. */
const IBAN_START = /(?<![A-Za-z0-9])[A-Za-z]{2}\d{2}(?=[ ]?[A-Za-z0-9])/g;

/** Value of a letter or digit in the IBAN mod-97 scheme (digits 0-9, letters 10-35), or -1. */
function ibanValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 65 && code <= 90) return code - 55;
  if (code >= 97 && code <= 122) return code - 87;
  return -1;
}

/**
 * Checks the IBAN starting at `start` in place: exactly the country's length in letters and
 * digits, compact or printed in groups of four (a single space after every fourth character),
 * not followed directly by another letter or digit, check digits 02-98 and mod 97 = 1. Returns
 * the end offset, or -1.
 */
function ibanEndAt(text: string, start: number): number {
  const length = ibanLength(text.charCodeAt(start), text.charCodeAt(start + 1));
  if (length === 0) return -1;
  const check = (text.charCodeAt(start + 2) - 48) * 10 + (text.charCodeAt(start + 3) - 48);
  if (check < 2 || check > 98) return -1;
  // The shape first (cheap), the mod-97 checksum only for a candidate of the right length.
  let count = 4;
  let i = start + 4;
  while (i < text.length && count < length) {
    const code = text.charCodeAt(i);
    if (isAlnumCode(code)) count++;
    else if (!(code === 32 && count % 4 === 0 && text.charCodeAt(i - 1) !== 32 && alnumAt(text, i + 1))) break;
    i++;
  }
  if (count !== length || alnumAt(text, i)) return -1;
  let remainder = 0;
  for (let j = start + 4; j < i; j++) {
    const value = ibanValue(text.charCodeAt(j));
    if (value >= 0) remainder = (remainder * (value > 9 ? 100 : 10) + value) % 97;
  }
  for (let j = start; j < start + 4; j++) {
    const value = ibanValue(text.charCodeAt(j));
    remainder = (remainder * (value > 9 ? 100 : 10) + value) % 97;
  }
  return remainder === 1 ? i : -1;
}

/** IBAN length by country letters (upper case, A = 0): 26 × 26 entries, 0 for no registry country. */
const IBAN_LENGTH_TABLE = new Uint8Array(26 * 26);
for (const [country, length] of Object.entries(IBAN_LENGTHS)) {
  IBAN_LENGTH_TABLE[(country.charCodeAt(0) - 65) * 26 + (country.charCodeAt(1) - 65)] = length;
}

/** Letter index 0-25 of an ASCII letter in either case, or -1. */
function letterIndex(code: number): number {
  if (code >= 65 && code <= 90) return code - 65;
  if (code >= 97 && code <= 122) return code - 97;
  return -1;
}

/** The IBAN length of the country spelled by two letter codes (either case), or 0. */
function ibanLength(first: number, second: number): number {
  const a = letterIndex(first);
  const b = letterIndex(second);
  return a < 0 || b < 0 ? 0 : IBAN_LENGTH_TABLE[a * 26 + b];
}

/**
 * IBANs of any registry country, compact or in groups of four, with a valid mod-97 checksum.
 * `IBAN_START` matches exactly four characters, so `test` and `lastIndex` locate each start
 * without a match object (a text can hold 100,000 starts per MB).
 */
export const ibanDetector: PiiDetector = {
  type: 'iban',
  find: (text) => {
    const spans: PiiSpan[] = [];
    IBAN_START.lastIndex = 0;
    while (IBAN_START.test(text)) {
      const start = IBAN_START.lastIndex - 4;
      const end = ibanEndAt(text, start);
      if (end > 0) {
        spans.push({ start, end });
        IBAN_START.lastIndex = end;
      }
    }
    return spans;
  },
};
