import { forEachKeywordWindow, isAlnumCode, isLetterCode, matchSpans } from '../text-utils';
import { ssnValid } from './validators';
import { PiiDetector, PiiSpan } from './types';

const SSN_DASHED = /(?<![\d-])(\d{3})-(\d{2})-(\d{4})(?![\d-])/g;
const SSN_KEYWORD = /\b(?:ssn|social security|soc\. ?sec\.)/gi;
const SSN_AFTER_KEYWORD = /^([^0-9]{0,24})(\d{3})[ .-]?(\d{2})[ .-]?(\d{4})(?!\d)/;

/**
 * US social security numbers: `ddd-dd-dddd` anywhere; `ddd dd dddd` or nine plain digits only
 * right after an "SSN" / "social security" keyword. Area 001-899 except 666, group and serial not zero.
 */
export const ssnDetector: PiiDetector = {
  type: 'ssn',
  find: (text) => {
    const spans = text.includes('-') ? matchSpans(SSN_DASHED, text, (m) => ssnValid(m[1], m[2], m[3])) : [];
    forEachKeywordWindow(SSN_KEYWORD, text, 40, (start, end) => {
      const m = SSN_AFTER_KEYWORD.exec(text.slice(start, end));
      if (m && ssnValid(m[2], m[3], m[4])) {
        const at = start + m[1].length;
        if (!spans.some((span) => span.start === at)) spans.push({ start: at, end: start + m[0].length });
      }
    });
    return spans;
  },
};

const MAX_LOCAL = 64;
const MAX_DOMAIN = 253;

function isLocalChar(code: number): boolean {
  // letters, digits and . _ % + -
  return isAlnumCode(code) || code === 46 || code === 95 || code === 37 || code === 43 || code === 45;
}

function isDomainChar(code: number): boolean {
  return isAlnumCode(code) || code === 46 || code === 45;
}

/**
 * Domain in text[from, to): at least two labels of 1-63 letters, digits or inner hyphens, and an
 * alphabetic TLD of 2-24 letters (or an `xn--` punycode TLD). Checked in place, without allocation.
 */
function domainValid(text: string, from: number, to: number): boolean {
  let labels = 0;
  let labelStart = from;
  for (let i = from; i <= to; i++) {
    if (i < to && text.charCodeAt(i) !== 46) continue;
    const length = i - labelStart;
    if (length === 0 || length > 63 || text.charCodeAt(labelStart) === 45 || text.charCodeAt(i - 1) === 45) return false;
    labels++;
    if (i === to) {
      if (labels < 2) return false;
      if (text.startsWith('xn--', labelStart)) return length > 4;
      if (length < 2 || length > 24) return false;
      for (let j = labelStart; j < to; j++) if (!isLetterCode(text.charCodeAt(j))) return false;
      return true;
    }
    labelStart = i + 1;
  }
  return false;
}

/** `://user@host` at `localStart`: the user of a URL (`ssh://git@gitlab.com/...`), not an address. */
function isUrlUser(text: string, localStart: number): boolean {
  return localStart >= 3 && text.charCodeAt(localStart - 1) === 47 && text.charCodeAt(localStart - 2) === 47 && text.charCodeAt(localStart - 3) === 58;
}

/** `@host:path` ending at `end`: an scp-style remote (`git@github.com:org/repo.git`), not an address. */
function isRemotePath(text: string, end: number): boolean {
  if (text.charCodeAt(end) !== 58 || end + 1 >= text.length) return false;
  const next = text.charCodeAt(end + 1);
  return isAlnumCode(next) || next === 47 || next === 126 || next === 46 || next === 95;
}

/** `user:password@host` of a URL (`scheme://user:password@host`): a credential, not an address. */
function isUrlCredentials(text: string, localStart: number): boolean {
  if (text.charCodeAt(localStart - 1) !== 58) return false;
  for (let i = localStart - 2; i >= 2 && i > localStart - 140; i--) {
    const code = text.charCodeAt(i);
    if (code === 32 || code === 10 || code === 9) return false;
    if (code === 47 && text.charCodeAt(i - 1) === 47 && text.charCodeAt(i - 2) === 58) return true;
  }
  return false;
}

/**
 * E-mail addresses, found from each `@` outwards without a regular expression: local part of
 * letters, digits and `._%+-` (1-64), domain of at least two labels with an alphabetic TLD. Not
 * the user of a URL (`ssh://git@host/`, `scheme://user:password@host`) nor of an scp-style
 * remote (`git@github.com:org/repo.git`).
 * Each character is visited a bounded number of times, so the scan is linear even on runs of `@`.
 */
export function findEmails(text: string): PiiSpan[] {
  const spans: PiiSpan[] = [];
  for (let at = text.indexOf('@'); at !== -1 && at < text.length; at++) {
    if (text.charCodeAt(at) !== 64) continue;
    let start = at;
    while (start > 0 && at - start < MAX_LOCAL && isLocalChar(text.charCodeAt(start - 1))) start--;
    if (start > 0 && isLocalChar(text.charCodeAt(start - 1))) continue;
    while (start < at && text.charCodeAt(start) === 46) start++;
    if (start === at || text.charCodeAt(at - 1) === 46 || isUrlCredentials(text, start) || isUrlUser(text, start)) continue;
    let end = at + 1;
    let dot = false;
    while (end < text.length && end - at - 1 < MAX_DOMAIN) {
      const code = text.charCodeAt(end);
      if (!isDomainChar(code)) break;
      if (code === 46) dot = true;
      end++;
    }
    if (!dot || (end < text.length && isDomainChar(text.charCodeAt(end))) || isRemotePath(text, end)) continue;
    while (end > at + 1 && (text.charCodeAt(end - 1) === 46 || text.charCodeAt(end - 1) === 45)) end--;
    if (domainValid(text, at + 1, end)) spans.push({ start, end });
  }
  return spans;
}

export const emailDetector: PiiDetector = { type: 'email', find: findEmails };
