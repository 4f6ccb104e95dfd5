import { digitsValue } from '../text-utils';

/** Checksums and number-range rules that keep the PII patterns' false positives down. */

/** Luhn (mod 10) over a string of digits. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return false;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return digits.length > 0 && sum % 10 === 0;
}

export type CardNetwork = 'visa' | 'mastercard' | 'amex' | 'discover';

/** The card network of a card number by its issuer prefix and length, or null. */
export function cardNetwork(digits: string): CardNetwork | null {
  const len = digits.length;
  const two = digitsValue(digits, 0, 2);
  const three = digitsValue(digits, 0, 3);
  const four = digitsValue(digits, 0, 4);
  const six = digitsValue(digits, 0, 6);
  if (digits[0] === '4' && (len === 13 || len === 16 || len === 19)) return 'visa';
  if (len === 16 && ((two >= 51 && two <= 55) || (four >= 2221 && four <= 2720))) return 'mastercard';
  if (len === 15 && (two === 34 || two === 37)) return 'amex';
  if (len >= 16 && len <= 19 && (four === 6011 || two === 65 || (three >= 644 && three <= 649) || (six >= 622126 && six <= 622925))) {
    return 'discover';
  }
  return null;
}

/** IBAN length per country (ISO 13616 registry). */
export const IBAN_LENGTHS: Readonly<Record<string, number>> = Object.freeze({
  AD: 24, AE: 23, AL: 28, AT: 20, AZ: 28, BA: 20, BE: 16, BG: 22, BH: 22, BR: 29, BY: 28, CH: 21, CR: 22, CY: 28,
  CZ: 24, DE: 22, DK: 18, DO: 28, EE: 20, EG: 29, ES: 24, FI: 18, FO: 18, FR: 27, GB: 22, GE: 22, GI: 23, GL: 18,
  GR: 27, GT: 28, HR: 21, HU: 28, IE: 22, IL: 23, IQ: 23, IS: 26, IT: 27, JO: 30, KW: 30, KZ: 20, LB: 28, LC: 32,
  LI: 21, LT: 20, LU: 20, LV: 21, MC: 27, MD: 24, ME: 22, MK: 19, MR: 27, MT: 31, MU: 30, NL: 18, NO: 15, PK: 24,
  PL: 28, PS: 29, PT: 25, QA: 29, RO: 24, RS: 22, SA: 24, SC: 31, SE: 24, SI: 19, SK: 24, SM: 27, ST: 25, SV: 28,
  TL: 23, TN: 24, TR: 26, UA: 29, VA: 22, VG: 24, XK: 20,
});

/** IBAN check: known country, its exact length, check digits 02-98, and mod 97 of the rearranged number = 1. */
export function ibanValid(iban: string): boolean {
  const value = iban.toUpperCase();
  if (IBAN_LENGTHS[value.slice(0, 2)] !== value.length) return false;
  const check = digitsValue(value, 2, 4);
  if (!(check >= 2 && check <= 98)) return false;
  const rearranged = value.slice(4) + value.slice(0, 4);
  let remainder = 0;
  for (let i = 0; i < rearranged.length; i++) {
    const code = rearranged.charCodeAt(i);
    if (code >= 48 && code <= 57) remainder = (remainder * 10 + (code - 48)) % 97;
    else if (code >= 65 && code <= 90) remainder = (remainder * 100 + (code - 55)) % 97;
    else return false;
  }
  return remainder === 1;
}

/** SSN ranges: area 001-899 except 666, group 01-99, serial 0001-9999. */
export function ssnValid(area: string, group: string, serial: string): boolean {
  const a = digitsValue(area);
  return a > 0 && a !== 666 && a < 900 && digitsValue(group) > 0 && digitsValue(serial) > 0;
}

const NINO_BAD_FIRST = 'DFIQUV';
const NINO_BAD_SECOND = 'DFIOQUV';
const NINO_BAD_PREFIXES = ['BG', 'GB', 'KN', 'NK', 'NT', 'TN', 'ZZ'];

/** UK NINO prefix rules (HMRC): letter sets and the never-issued prefixes. */
export function ninoPrefixValid(prefix: string): boolean {
  const p = prefix.toUpperCase();
  return p.length === 2 && !NINO_BAD_FIRST.includes(p[0]) && !NINO_BAD_SECOND.includes(p[1]) && !NINO_BAD_PREFIXES.includes(p);
}

function alnumValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 65 && code <= 90) return code - 55;
  return -1;
}

/** ICAO 9303 check digit (weights 7, 3, 1) used by German ID cards and passports. */
export function icaoCheckDigit(value: string): number {
  const weights = [7, 3, 1];
  let sum = 0;
  for (let i = 0; i < value.length; i++) {
    const v = alnumValue(value.charCodeAt(i));
    if (v < 0) return -1;
    sum += v * weights[i % 3];
  }
  return sum % 10;
}

/** German tax id (Steuer-IdNr): 11 digits, first not 0, ISO 7064 MOD 11,10 check digit. */
export function germanTaxIdValid(digits: string): boolean {
  if (!/^[1-9]\d{10}$/.test(digits)) return false;
  let product = 10;
  for (let i = 0; i < 10; i++) {
    let sum = (digits.charCodeAt(i) - 48 + product) % 10;
    if (sum === 0) sum = 10;
    product = (sum * 2) % 11;
  }
  const check = (11 - product) % 10;
  return check === digits.charCodeAt(10) - 48;
}
