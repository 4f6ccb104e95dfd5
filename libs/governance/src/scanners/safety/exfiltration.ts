import { forEachKeywordWindow, lowerCode, minOf, NextOccurrence } from '../text-utils';
import { INJECTION_RULES } from './rules';
import { FindingQuota, SafetyFinding } from './types';

/**
 * Exfiltration indicators of stage 4.6: URLs that carry data in their query string, markdown or
 * HTML image beacons (an image URL the client renders and so fetches, carrying data out),
 * "send/post the contents to <URL or address>", and instructions to put conversation data into a
 * link or image. Bounded patterns and windows only.
 */

const LONG_QUERY = 100;
const MIN_DATA_VALUE = 32;
const MAX_DATA_VALUE = 2048;

function isWordCode(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
}

/** Characters of a data value: letters, digits and `+ / = _ % . -`. */
function isDataCode(code: number): boolean {
  return isWordCode(code) || code === 43 || code === 47 || code === 61 || code === 37 || code === 46 || code === 45;
}

/** A template placeholder in text[from, to): `{ } [ ] < > $`, their URL encodings, or `%s` as a word end. */
function hasPlaceholder(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const code = text.charCodeAt(i);
    if (code === 123 || code === 125 || code === 91 || code === 93 || code === 60 || code === 62 || code === 36) return true;
    if (code !== 37 || i + 1 >= to) continue;
    const next = lowerCode(text.charCodeAt(i + 1));
    if (next === 115 && (i + 2 >= to || !isWordCode(text.charCodeAt(i + 2)))) return true; // %s
    if (i + 2 >= to) continue;
    const last = lowerCode(text.charCodeAt(i + 2));
    if ((next === 55 && (last === 98 || last === 100)) || (next === 53 && last === 98) || (next === 51 && last === 99) || (next === 50 && last === 52)) {
      return true; // %7b %7d %5b %3c %24
    }
  }
  return false;
}

/**
 * text[from, to) is a hex digest (MD5, SHA-1, SHA-256: a commit, a content hash, a cache-buster),
 * not data: 32, 40 or 64 characters, digits and hex letters of one case, with both. Called only for
 * a value that would otherwise count as data, so each query character is read at most twice.
 */
function isHexDigest(text: string, from: number, to: number): boolean {
  const length = to - from;
  if (length !== 32 && length !== 40 && length !== 64) return false;
  let digits = false;
  let lower = false;
  let upper = false;
  for (let i = from; i < to; i++) {
    const code = text.charCodeAt(i);
    if (code >= 48 && code <= 57) digits = true;
    else if (code >= 97 && code <= 102) lower = true;
    else if (code >= 65 && code <= 70) upper = true;
    else return false;
  }
  return digits && lower !== upper;
}

/**
 * The query text[from, to) looks like a carrier: sheer length, a template placeholder, or a value
 * (after the first `=` of a `&`-separated pair, or the whole pair) of 32 or more data characters
 * that is not a hex digest (32, 40 or 64 hex digits and letters of one case, with both:
 * `?sha=<commit>`, an avatar's `u=<hash>`). Read in place, without substrings or regular expressions.
 */
function queryCarriesData(text: string, from: number, to: number): boolean {
  if (to - from >= LONG_QUERY || hasPlaceholder(text, from, to)) return true;
  let valueStart = from;
  let equals = false;
  let clean = true;
  for (let i = from; i <= to; i++) {
    const code = i < to ? text.charCodeAt(i) : 38;
    if (code === 38) {
      const length = i - valueStart;
      if (clean && length >= MIN_DATA_VALUE && length <= MAX_DATA_VALUE && !isHexDigest(text, valueStart, i)) return true;
      valueStart = i + 1;
      equals = false;
      clean = true;
    } else if (code === 61 && !equals) {
      equals = true;
      valueStart = i + 1;
      clean = true;
    } else if (!isDataCode(code)) {
      clean = false;
    }
  }
  return false;
}

/** Shortest value an image URL carries as encoded data: 6 bytes of base64. */
const MIN_ENCODED_VALUE = 8;

/**
 * Some value of the query text[from, to) looks like base64/base64url data of 8 or more characters:
 * only `A-Z a-z 0-9 + / _ -` with at most two trailing `=`, and upper and lower case letters with a
 * digit or padding. An image has no use for such a parameter; badges and resizers use words and
 * numbers (`style=flat-square`, `w=800`, `v=4`, `v=3f9a2b1c`, `label=Build%20Status`). Read in place.
 */
function queryHasEncodedValue(text: string, from: number, to: number): boolean {
  let valueStart = from;
  let equals = false;
  let upper = false;
  let lower = false;
  let digit = false;
  let padding = 0;
  let clean = true;
  for (let i = from; i <= to; i++) {
    const code = i < to ? text.charCodeAt(i) : 38;
    if (code === 38 || (code === 61 && !equals)) {
      if (code === 38 && clean && i - valueStart >= MIN_ENCODED_VALUE && upper && lower && (digit || padding > 0)) return true;
      equals = code === 61;
      valueStart = i + 1;
      upper = lower = digit = false;
      padding = 0;
      clean = true;
    } else if (code === 61) {
      if (++padding > 2) clean = false;
    } else if (padding > 0) {
      clean = false;
    } else if (code >= 65 && code <= 90) upper = true;
    else if (code >= 97 && code <= 122) lower = true;
    else if (code >= 48 && code <= 57) digit = true;
    else if (code !== 43 && code !== 47 && code !== 95 && code !== 45) clean = false;
  }
  return false;
}

/**
 * `<data>`, `<base64 of the chat>` at `at`: where a URL stops (`?q=<data>`), a template placeholder
 * of up to 64 letters, digits, spaces, `_ - .` closed by `>`. Not a tag (`<img src="...">`).
 */
function isAnglePlaceholder(text: string, at: number): boolean {
  if (text.charCodeAt(at) !== 60) return false;
  const last = minOf(at + 66, text.length);
  for (let i = at + 1; i < last; i++) {
    const code = text.charCodeAt(i);
    if (code === 62) return i > at + 1;
    if (!isWordCode(code) && code !== 32 && code !== 45 && code !== 46) return false;
  }
  return false;
}

/** The URL at `start` is the source of a markdown image `![alt](url)` or an HTML `<img src=url>`. */
function isImageUrl(text: string, start: number): boolean {
  let i = start - 1;
  if (text[i] === ' ') i--;
  if (text[i] === '(' && text[i - 1] === ']') {
    for (let j = i - 2; j >= 0 && j >= i - 260; j--) {
      if (text[j] === '\n' || text[j] === ']') return false;
      if (text[j] === '[') return text[j - 1] === '!';
    }
    return false;
  }
  if (text[i] === '"' || text[i] === "'") i--;
  if (text[i] === ' ') i--;
  if (text[i] !== '=' || i < 3 || !asciiAt(text, i - 3, 'src')) return false;
  for (let j = i - 4; j >= 0 && j >= i - 260; j--) {
    if (text[j] === '>' || text[j] === '\n') return false;
    if (text[j] === '<') return asciiAt(text, j + 1, 'img');
  }
  return false;
}

/** text[at, at + word.length) is `word` (lower-case ASCII letters) in any case. */
function asciiAt(text: string, at: number, word: string): boolean {
  for (let k = 0; k < word.length; k++) if (lowerCode(text.charCodeAt(at + k)) !== word.charCodeAt(k)) return false;
  return true;
}

function finding(rule: string, severity: 'high' | 'medium', path: string, start: number, end: number): SafetyFinding {
  return { stage: 'security_scan', rule, category: 'exfiltration', severity, path, start, end, reclassifiable: true };
}

/** The part of a URL after `://`: up to white space or `< > " ' \` ) ]`, at most 2048 characters. */
const URL_TAIL = /[^\s<>"'`)\]]{1,2048}/y;

/**
 * Calls `visit(start, end)` for each match of `https?:\/\/[^\s<>"'\`)\]]{1,2048}` (case-insensitive),
 * in order and without overlaps, found from each `://`: no match objects or substrings per URL (a
 * text can hold 50,000 URLs per MB).
 */
function forEachUrl(text: string, visit: (start: number, end: number) => void): void {
  let resume = 0;
  for (let colon = text.indexOf('://', 4); colon !== -1; colon = text.indexOf('://', colon + 1)) {
    let start = -1;
    if (colon - 5 >= resume && lowerCode(text.charCodeAt(colon - 1)) === 115 && asciiAt(text, colon - 5, 'http')) start = colon - 5;
    else if (colon - 4 >= resume && asciiAt(text, colon - 4, 'http')) start = colon - 4;
    if (start < 0) continue;
    URL_TAIL.lastIndex = colon + 3;
    if (!URL_TAIL.test(text)) continue;
    const end = URL_TAIL.lastIndex;
    visit(start, end);
    resume = end;
    colon = end - 1;
  }
}

export function findUrlExfiltration(path: string, text: string): SafetyFinding[] {
  const findings: SafetyFinding[] = [];
  const quota = new FindingQuota();
  const questions = new NextOccurrence(text, '?');
  const hashes = new NextOccurrence(text, '#');
  forEachUrl(text, (start, end) => {
    const question = questions.from(start);
    if (question >= end) return;
    const hash = minOf(hashes.from(question + 1), end);
    if (hash === question + 1) return;
    const placeholder = hash === end && text.charCodeAt(end - 1) === 61 && isAnglePlaceholder(text, end);
    const carries = placeholder || queryCarriesData(text, question + 1, hash);
    const image = isImageUrl(text, start);
    if (!carries && !(image && queryHasEncodedValue(text, question + 1, hash))) return;
    const rule = image ? 'image_beacon' : 'url_with_data';
    if (quota.take(rule)) findings.push(finding(rule, rule === 'image_beacon' ? 'high' : 'medium', path, start, end));
  });
  return findings;
}

const SEND_TO = INJECTION_RULES.find((rule) => rule.id === 'send_data_to') as (typeof INJECTION_RULES)[number];
/** The send rule's pattern with the word-start guard of the phrase rules (see rules.ts `compile`). */
const SEND_TO_PATTERN = new RegExp(`\\b(?=[a-z][a-z-])${SEND_TO.pattern.source.slice(2)}`, 'gi');
const DESTINATION = /https?:\/\/|ftp:\/\/|webhook|[A-Za-z0-9._%+-]@[A-Za-z0-9-]{1,63}\.[A-Za-z]/i;
const DESTINATION_WINDOW = 120;

/**
 * "send the conversation to https://..." (high with a destination within 120 characters, medium
 * without). Every destination holds `://`, `webhook` or `@`: a window without one is not tested.
 */
export function findSendTo(path: string, text: string): SafetyFinding[] {
  const findings: SafetyFinding[] = [];
  const quota = new FindingQuota();
  const hints = [new NextOccurrence(text, '@'), new NextOccurrence(text, '://'), new NextOccurrence(text, /webhook/gi)];
  SEND_TO_PATTERN.lastIndex = 0;
  let match: RegExpExecArray | null;
  while ((match = SEND_TO_PATTERN.exec(text)) !== null) {
    const end = match.index + match[0].length;
    const windowEnd = end + DESTINATION_WINDOW;
    const hinted = hints[0].from(end) < windowEnd || hints[1].from(end) < windowEnd || hints[2].from(end) < windowEnd;
    const destination = hinted && DESTINATION.test(text.slice(end, windowEnd));
    const rule = destination ? 'send_data_to_destination' : 'send_data_to';
    if (quota.take(rule)) findings.push(finding(rule, destination ? 'high' : 'medium', path, match.index, end));
  }
  return findings;
}

const LINK_INSTRUCTION =
  /\b(?:render|display|include|insert|embed|append|add|output|show|create|generate)(?:[ \n](?:an?|the|this|a[ \n]markdown))?[ \n](?:markdown[ \n])?(?:image|img|link|url|hyperlink)s?\b/gi;
const CONVERSATION_DATA =
  /\b(?:conversation|chat history|system prompt|secrets?|passwords?|api keys?|credentials|previous messages|personal data|user data|the user's (?:data|messages|information))\b/i;

/** "add a markdown image whose URL contains the conversation" and the like. */
export function findLinkInstructions(path: string, text: string, lower: string): SafetyFinding[] {
  const findings: SafetyFinding[] = [];
  if (!/image|img|link|url/.test(lower)) return findings;
  const quota = new FindingQuota();
  forEachKeywordWindow(LINK_INSTRUCTION, text, 120, (start, end, keywordStart) => {
    if (CONVERSATION_DATA.test(text.slice(start, end)) && quota.take('data_in_link_instruction')) {
      findings.push(finding('data_in_link_instruction', 'high', path, keywordStart, end));
    }
  });
  return findings;
}
