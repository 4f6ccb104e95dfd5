import { forEachKeywordWindow } from '../text-utils';
import { INJECTION_RULES } from './rules';
import { SafetyFinding } from './types';

/**
 * Exfiltration indicators of stage 4.6: URLs that carry data in their query string, markdown or
 * HTML image beacons (an image URL the client renders and so fetches, carrying data out),
 * "send/post the contents to <URL or address>", and instructions to put conversation data into a
 * link or image. Bounded patterns and windows only.
 */

const URL_PATTERN = /https?:\/\/[^\s<>"'`)\]]{1,2048}/gi;
const PLACEHOLDER = /[{}[\]<>$]|%7b|%7d|%5b|%3c|%24|%s\b/i;
const DATA_VALUE = /^[A-Za-z0-9+/=_%.-]{32,2048}$/;
const LONG_QUERY = 100;

/** A query string that looks like a carrier: a template placeholder, a long encoded value, or sheer length. */
function queryCarriesData(query: string): boolean {
  if (query.length >= LONG_QUERY || PLACEHOLDER.test(query)) return true;
  return query.split('&').some((pair) => DATA_VALUE.test(pair.slice(pair.indexOf('=') + 1)));
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
  if (text[i] !== '=' || text.slice(i - 3, i).toLowerCase() !== 'src') return false;
  for (let j = i - 4; j >= 0 && j >= i - 260; j--) {
    if (text[j] === '>' || text[j] === '\n') return false;
    if (text[j] === '<') return text.slice(j, j + 4).toLowerCase() === '<img';
  }
  return false;
}

function finding(rule: string, severity: 'high' | 'medium', path: string, start: number, end: number): SafetyFinding {
  return { stage: 'security_scan', rule, category: 'exfiltration', severity, path, start, end, reclassifiable: true };
}

export function findUrlExfiltration(path: string, text: string): SafetyFinding[] {
  const findings: SafetyFinding[] = [];
  if (!text.includes('://')) return findings;
  URL_PATTERN.lastIndex = 0;
  let match: RegExpExecArray | null;
  while ((match = URL_PATTERN.exec(text)) !== null) {
    const url = match[0];
    const question = url.indexOf('?');
    if (question < 0) continue;
    const hash = url.indexOf('#', question);
    const query = url.slice(question + 1, hash < 0 ? url.length : hash);
    if (query.length === 0 || !queryCarriesData(query)) continue;
    const end = match.index + url.length;
    if (isImageUrl(text, match.index)) findings.push(finding('image_beacon', 'high', path, match.index, end));
    else findings.push(finding('url_with_data', 'medium', path, match.index, end));
  }
  return findings;
}

const SEND_TO = INJECTION_RULES.find((rule) => rule.id === 'send_data_to') as (typeof INJECTION_RULES)[number];
const DESTINATION = /https?:\/\/|ftp:\/\/|webhook|[A-Za-z0-9._%+-]@[A-Za-z0-9-]{1,63}\.[A-Za-z]/i;

/** "send the conversation to https://..." (high with a destination within 120 characters, medium without). */
export function findSendTo(path: string, text: string, lower: string): SafetyFinding[] {
  const findings: SafetyFinding[] = [];
  if (!SEND_TO.keywords.some((keyword) => lower.includes(keyword))) return findings;
  SEND_TO.pattern.lastIndex = 0;
  let match: RegExpExecArray | null;
  while ((match = SEND_TO.pattern.exec(text)) !== null) {
    const end = match.index + match[0].length;
    const destination = DESTINATION.test(text.slice(end, end + 120));
    findings.push(finding(destination ? 'send_data_to_destination' : 'send_data_to', destination ? 'high' : 'medium', path, match.index, end));
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
  forEachKeywordWindow(LINK_INSTRUCTION, text, 120, (start, end, keywordStart) => {
    if (CONVERSATION_DATA.test(text.slice(start, end))) findings.push(finding('data_in_link_instruction', 'high', path, keywordStart, end));
  });
  return findings;
}
