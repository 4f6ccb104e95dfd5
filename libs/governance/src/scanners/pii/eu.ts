import { forEachKeywordWindow, matchOffsets, tokensIn } from '../text-utils';
import { germanTaxIdValid, icaoCheckDigit, ninoPrefixValid } from './validators';
import { PiiDetector } from './types';

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

export const vatDetector: PiiDetector = { type: 'eu_vat_number', find: (text) => matchOffsets(VAT, text, (m) => vatOk(m[0])) };

/** UK national insurance numbers `AB 12 34 56 C`, upper case, with HMRC's prefix rules and suffix A-D. */
const NINO = /(?<![A-Za-z0-9])([A-Z]{2}) ?\d{2} ?\d{2} ?\d{2} ?[A-D](?![A-Za-z0-9])/g;

export const ninoDetector: PiiDetector = { type: 'uk_nino', find: (text) => matchOffsets(NINO, text, (m) => ninoPrefixValid(m[1])) };

/** Passport numbers have no checksum in running text: they are looked for only after a passport keyword. */
const PASSPORT_KEYWORD = /\b(?:passport|passeport|reisepass|pasaporte|passaporto|paspoort|paszport|passnummer|pass-nr)/gi;
const PASSPORT_FORMATS = [
  /^[CFGHJKLMNPRTVWXYZ][CFGHJKLMNPRTVWXYZ0-9]{8}$/, // DE
  /^\d{2}[A-Z]{2}\d{5}$/, // FR
  /^[A-Z]{2}[A-Z0-9]{6}\d$/, // NL
  /^[A-Z]{1,3}\d{6,8}$/, // AT, BE, ES, FI, GR, IE, IT, PL, PT, ...
  /^\d{8,9}$/, // DK, SE
];
const KEYWORD_WINDOW = 48;
const WINDOW_TOKENS = 5;

function hasDigitAndFormat(token: string, formats: readonly RegExp[]): boolean {
  return /\d/.test(token) && formats.some((format) => format.test(token));
}

/** EU passport numbers by country format within a short window after a passport keyword (several languages). */
export const passportDetector: PiiDetector = {
  type: 'eu_passport_number',
  find: (text) => {
    const offsets: number[] = [];
    forEachKeywordWindow(PASSPORT_KEYWORD, text, KEYWORD_WINDOW, (start, end) => {
      for (const token of tokensIn(text, start, end, WINDOW_TOKENS)) {
        const upper = token.toUpperCase();
        if (upper.length >= 7 && upper.length <= 9 && hasDigitAndFormat(upper, PASSPORT_FORMATS)) {
          offsets.push(text.indexOf(token, start));
          break;
        }
      }
    });
    return offsets;
  },
};

const DE_ID_KEYWORD =
  /\b(?:personalausweis|ausweis|id[ -]?card|identity card|german id|steueridentifikationsnummer|steuer-?id|idnr|tax id)/gi;
const DE_ID_ALPHABET = /^[CFGHJKLMNPRTVWXYZ0-9]{9}$/;

function germanIdToken(token: string): boolean {
  const upper = token.toUpperCase();
  if (/^\d{11}$/.test(upper)) return germanTaxIdValid(upper);
  if (!/\d/.test(upper)) return false;
  if (upper.length === 9) return DE_ID_ALPHABET.test(upper);
  if (upper.length === 10 && DE_ID_ALPHABET.test(upper.slice(0, 9))) return icaoCheckDigit(upper.slice(0, 9)) === upper.charCodeAt(9) - 48;
  return false;
}

/**
 * German ID numbers after an ID keyword: identity card numbers (nine characters of the card
 * alphabet, optionally with their ICAO check digit) and tax ids (Steuer-IdNr, 11 digits with
 * their check digit; also written in groups).
 */
export const germanIdDetector: PiiDetector = {
  type: 'de_id_number',
  find: (text) => {
    const offsets: number[] = [];
    forEachKeywordWindow(DE_ID_KEYWORD, text, KEYWORD_WINDOW, (start, end) => {
      const tokens = tokensIn(text, start, end, WINDOW_TOKENS + 3);
      const hit = tokens.slice(0, WINDOW_TOKENS).find(germanIdToken);
      const firstDigits = tokens.findIndex((token) => /^\d{1,11}$/.test(token));
      let grouped = '';
      for (let i = firstDigits; i >= 0 && i < tokens.length && /^\d{1,11}$/.test(tokens[i]); i++) grouped += tokens[i];
      if (hit) offsets.push(text.indexOf(hit, start));
      else if (grouped.length === 11 && germanTaxIdValid(grouped)) offsets.push(start);
    });
    return offsets;
  },
};
