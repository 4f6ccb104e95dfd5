import { forEachKeywordWindow, isAlnumCode, isDigitCode, matchSpans, maxOf, minOf } from '../text-utils';
import { germanTaxIdValid, icaoCheckDigit, ninoPrefixValid } from './validators';
import { PiiDetector, PiiSpan } from './types';

/**
 * EU VAT numbers by country format (EU members, XI for Northern Ireland, GB), upper case, with
 * an optional space after the country code, not inside a longer token. Format only: most
 * countries' check digits are undocumented or disputed, and the type is MEDIUM (flagged).
 */
const VAT_FORMATS = [
  'ATU\\d{8}', 'BE ?[01]\\d{9}', 'BG ?\\d{9,10}', 'CY ?\\d{8}[A-Z]', 'CZ ?\\d{8,10}', 'DE ?\\d{9}', 'DK ?\\d{8}',
  'EE ?\\d{9}', 'EL ?\\d{9}', 'ES ?[A-Z0-9]\\d{7}[A-Z0-9]', 'FI ?\\d{8}', 'FR ?[0-9A-HJ-NP-Z]{2}\\d{9}', 'HR ?\\d{11}',
  'HU ?\\d{8}', 'IE ?\\d{7}[A-W][A-I]?', 'IE ?\\d[A-Z+*]\\d{5}[A-W]', 'IT ?\\d{11}', 'LT ?\\d{12}', 'LT ?\\d{9}',
  'LU ?\\d{8}', 'LV ?\\d{11}', 'MT ?\\d{8}', 'NL ?\\d{9}B\\d{2}', 'PL ?\\d{10}', 'PT ?\\d{9}', 'RO ?\\d{6,10}',
  'SE ?\\d{10}01', 'SI ?\\d{8}', 'SK ?\\d{10}', 'XI ?\\d{9}', 'GB ?\\d{12}', 'GB ?\\d{9}',
];
const VAT = new RegExp(`(?<![A-Za-z0-9])(?:${VAT_FORMATS.join('|')})(?![A-Za-z0-9])`, 'g');

function vatOk(value: string): boolean {
  if (!value.startsWith('ES')) return true;
  // Spain: the first and last characters may not both be digits.
  const body = value.replace(/^ES ?/, '');
  return /[A-Z]/.test(body[0]) || /[A-Z]/.test(body[body.length - 1]);
}

export const vatDetector: PiiDetector = { type: 'eu_vat_number', find: (text) => matchSpans(VAT, text, (m) => vatOk(m[0])) };

/** UK national insurance numbers `AB 12 34 56 C`, upper case, with HMRC's prefix rules and suffix A-D. */
const NINO = /(?<![A-Za-z0-9])([A-Z]{2}) ?\d{2} ?\d{2} ?\d{2} ?[A-D](?![A-Za-z0-9])/g;

export const ninoDetector: PiiDetector = { type: 'uk_nino', find: (text) => matchSpans(NINO, text, (m) => ninoPrefixValid(m[1])) };

/** Passport numbers have no checksum in running text: they are looked for only after a passport keyword. */
const PASSPORT_KEYWORD = /\b(?:passport|passeport|reisepass|pasaporte|passaporto|paspoort|paszport|passnummer|pass-nr)/gi;
const KEYWORD_WINDOW = 48;
const WINDOW_TOKENS = 5;

/*
 * Tokens of a keyword window as spans (maximal runs of ASCII letters and digits, clipped to the
 * window, like `tokensIn`), judged character by character: a window costs no substrings, no
 * case conversion and no regular expressions unless it holds a hit. Windows are visited one at a
 * time, so one pair of span buffers serves every call.
 */
const MAX_SPANS = WINDOW_TOKENS + 3;
const SPAN_STARTS = new Int32Array(MAX_SPANS);
const SPAN_ENDS = new Int32Array(MAX_SPANS);

/** Fills the span buffers with the first `max` tokens of text[from, to); returns how many. */
function tokenSpans(text: string, from: number, to: number, max: number): number {
  const end = minOf(to, text.length);
  let count = 0;
  let start = -1;
  for (let i = maxOf(from, 0); i <= end && count < max; i++) {
    const inToken = i < end && isAlnumCode(text.charCodeAt(i));
    if (inToken && start < 0) start = i;
    if (!inToken && start >= 0) {
      SPAN_STARTS[count] = start;
      SPAN_ENDS[count++] = i;
      start = -1;
    }
  }
  return count;
}

/** Upper-case ASCII code of a letter (digits unchanged). */
function upperCode(code: number): number {
  return code >= 97 && code <= 122 ? code - 32 : code;
}

function upperLetterAt(text: string, i: number): boolean {
  const code = upperCode(text.charCodeAt(i));
  return code >= 65 && code <= 90;
}

/** Letters of German ID card numbers (and the DE passport format): CFGHJKLMNPRTVWXYZ, by upper-case code. */
const CARD_LETTER = new Uint8Array(128);
for (const char of 'CFGHJKLMNPRTVWXYZ') CARD_LETTER[char.charCodeAt(0)] = 1;

function cardCharAt(text: string, i: number, digits: boolean): boolean {
  const code = upperCode(text.charCodeAt(i));
  return (code < 128 && CARD_LETTER[code] === 1) || (digits && isDigitCode(code));
}

function allDigits(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (!isDigitCode(text.charCodeAt(i))) return false;
  return true;
}

function hasDigit(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (isDigitCode(text.charCodeAt(i))) return true;
  return false;
}

/**
 * The token text[from, to) (letters and digits) in upper case has a digit and a passport format:
 * DE `[CFGHJKLMNPRTVWXYZ][CFGHJKLMNPRTVWXYZ0-9]{8}`, FR `\d{2}[A-Z]{2}\d{5}`, NL
 * `[A-Z]{2}[A-Z0-9]{6}\d`, AT/BE/ES/FI/GR/IE/IT/PL/PT... `[A-Z]{1,3}\d{6,8}`, DK/SE `\d{8,9}`.
 */
function passportToken(text: string, from: number, to: number): boolean {
  const length = to - from;
  if (length < 7 || length > 9 || !hasDigit(text, from, to)) return false;
  if (length === 9 && cardCharAt(text, from, false)) {
    let de = true;
    for (let i = from + 1; i < to && de; i++) de = cardCharAt(text, i, true);
    if (de) return true;
  }
  if (length === 9 && allDigits(text, from, from + 2) && upperLetterAt(text, from + 2) && upperLetterAt(text, from + 3) && allDigits(text, from + 4, to)) {
    return true;
  }
  if (length === 9 && upperLetterAt(text, from) && upperLetterAt(text, from + 1) && isDigitCode(text.charCodeAt(to - 1))) return true;
  let letters = 0;
  while (letters < 3 && upperLetterAt(text, from + letters)) letters++;
  if (letters >= 1 && length - letters >= 6 && length - letters <= 8 && allDigits(text, from + letters, to)) return true;
  return length >= 8 && allDigits(text, from, to);
}

/** EU passport numbers by country format within a short window after a passport keyword (several languages). */
export const passportDetector: PiiDetector = {
  type: 'eu_passport_number',
  find: (text) => {
    const spans: PiiSpan[] = [];
    forEachKeywordWindow(PASSPORT_KEYWORD, text, KEYWORD_WINDOW, (start, end) => {
      const count = tokenSpans(text, start, end, WINDOW_TOKENS);
      for (let k = 0; k < count; k++) {
        if (passportToken(text, SPAN_STARTS[k], SPAN_ENDS[k])) {
          spans.push(tokenMatch(text, start, k));
          break;
        }
      }
    });
    return spans;
  },
};

const DE_ID_KEYWORD =
  /\b(?:personalausweis|ausweis|id[ -]?card|identity card|german id|steueridentifikationsnummer|steuer-?id|idnr|tax id)/gi;

/** An ID card number (nine card characters with a digit, optionally an ICAO check digit) or a valid tax id. */
function germanIdToken(text: string, from: number, to: number): boolean {
  const length = to - from;
  if (length === 11 && allDigits(text, from, to)) return germanTaxIdValid(text.slice(from, to));
  if ((length !== 9 && length !== 10) || !hasDigit(text, from, to)) return false;
  for (let i = from; i < from + 9; i++) if (!cardCharAt(text, i, true)) return false;
  if (length === 9) return true;
  return icaoCheckDigit(text.slice(from, from + 9).toUpperCase()) === text.charCodeAt(to - 1) - 48;
}

/**
 * German ID numbers after an ID keyword: identity card numbers (nine characters of the card
 * alphabet, optionally with their ICAO check digit) and tax ids (Steuer-IdNr, 11 digits with
 * their check digit; also written in groups).
 */
export const germanIdDetector: PiiDetector = {
  type: 'de_id_number',
  find: (text) => {
    const spans: PiiSpan[] = [];
    forEachKeywordWindow(DE_ID_KEYWORD, text, KEYWORD_WINDOW, (start, end) => {
      const count = tokenSpans(text, start, end, WINDOW_TOKENS + 3);
      for (let k = 0; k < minOf(count, WINDOW_TOKENS); k++) {
        if (germanIdToken(text, SPAN_STARTS[k], SPAN_ENDS[k])) {
          spans.push(tokenMatch(text, start, k));
          return;
        }
      }
      // A tax id written in groups: the first run of all-digit tokens (1-11 digits each), 11 digits in all.
      let k = 0;
      while (k < count && !digitGroup(text, k)) k++;
      let digits = 0;
      const first = k;
      for (; k < count && digitGroup(text, k) && digits <= 11; k++) digits += SPAN_ENDS[k] - SPAN_STARTS[k];
      if (digits !== 11 || (k < count && digitGroup(text, k))) return;
      let grouped = '';
      for (let j = first; j < k; j++) grouped += text.slice(SPAN_STARTS[j], SPAN_ENDS[j]);
      // Reported at the window's start (as it always was), spanning the groups.
      if (germanTaxIdValid(grouped)) spans.push({ start, end: SPAN_ENDS[k - 1] });
    });
    return spans;
  },
};

/**
 * The match of window token `k`: found as the first occurrence of the token's text in the window
 * (the offset stage 4 has always counted), spanning the token's length.
 */
function tokenMatch(text: string, windowStart: number, k: number): PiiSpan {
  const start = text.indexOf(text.slice(SPAN_STARTS[k], SPAN_ENDS[k]), windowStart);
  return { start, end: start + SPAN_ENDS[k] - SPAN_STARTS[k] };
}

/** Span `k` is a group of 1-11 digits. */
function digitGroup(text: string, k: number): boolean {
  const length = SPAN_ENDS[k] - SPAN_STARTS[k];
  return length >= 1 && length <= 11 && allDigits(text, SPAN_STARTS[k], SPAN_ENDS[k]);
}
