import { isAlnumCode, minOf } from '../text-utils';
import { tokenLooksRandom } from './credentials';
import { PiiDetector, PiiSpan } from './types';

/**
 * Team-chat webhook URLs (`webhook_url`, HIGH): whoever holds one can post into the channel, so
 * the URL is the credential. Each pattern starts with a host literal and has bounded quantifiers
 * only; the secret part must look random, so documentation placeholders
 * (`https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX`) are not reported.
 */

/** Slack incoming webhooks (`services/T.../B.../secret`), legacy workflow webhooks and workflow triggers. */
const SLACK_WEBHOOK =
  /hooks\.slack(?:-gov)?\.com\/(?:services\/T[A-Z0-9]{6,12}\/B[A-Z0-9]{6,12}|workflows\/T[A-Z0-9]{6,12}\/A[A-Z0-9]{6,12}\/\d{6,24}|triggers\/[TE][A-Z0-9]{6,12}\/\d{6,24})\/([A-Za-z0-9]{20,64})/g;
/** Discord webhooks: `discord.com/api/webhooks/<id>/<token>` (also `discordapp.com`, `/api/v10/`). */
const DISCORD_WEBHOOK = /discord(?:app)?\.com\/api(?:\/v\d{1,2})?\/webhooks\/\d{17,20}\/([A-Za-z0-9_-]{60,100})/g;
/** Microsoft Teams incoming webhooks (Office 365 connectors): `<tenant>.webhook.office.com/webhookb2/...` and the older `outlook.office.com/webhook/...`. */
const TEAMS_WEBHOOK =
  /(?:webhook\.office\.com\/webhookb2|outlook\.office(?:365)?\.com\/webhook)\/[0-9a-f-]{36}@[0-9a-f-]{36}\/IncomingWebhook\/([0-9a-f]{32})\/[0-9a-f-]{36}/gi;
/** Teams Workflows (Power Automate) triggers, whose `sig=` query parameter is the credential. */
const WORKFLOW_TRIGGER =
  /(?:logic\.azure\.com(?::443)?|\.powerplatform\.com(?::443)?\/powerautomate\/automations\/direct)\/workflows\/[0-9a-f]{32}\/triggers\/[A-Za-z0-9_]{1,64}\/paths\/invoke\?/gi;
/** Google Chat incoming webhooks, whose `token=` query parameter is the credential. */
const GOOGLE_CHAT_WEBHOOK = /chat\.googleapis\.com\/v1\/spaces\/[A-Za-z0-9_-]{1,64}\/messages\?/g;

const SECRET_CHAR = /[A-Za-z0-9_-]/;
/** An all-zero team or bot id (`T00000000`): a documentation placeholder. */
const ZERO_ID = /\/[TEAB]0{6}/;
/** Longest query read for a signature parameter. */
const MAX_QUERY = 2048;
/** Shortest `sig=` or `token=` value that counts (a 256-bit signature is 43 base64 characters). */
const MIN_SIGNATURE = 20;

/** Letters, digits and `% _ -`: the characters of a URL-encoded signature. */
function isSignatureCode(code: number): boolean {
  return isAlnumCode(code) || code === 37 || code === 95 || code === 45;
}

function isQueryEnd(code: number): boolean {
  // white space, " ' < > ` ) ] and the end of the text (NaN)
  return !(code > 32) || code === 34 || code === 39 || code === 60 || code === 62 || code === 96 || code === 41 || code === 93;
}

/**
 * The query starting at `from` (up to white space, a quote or a bracket, at most MAX_QUERY
 * characters) has a parameter `name` whose value holds MIN_SIGNATURE or more signature
 * characters (letters, digits, `%`, `_`, `-`) that look random. Read in place; returns the
 * query's end (negated when the parameter is missing), so the caller can resume there.
 */
function querySignature(text: string, from: number, name: string): number {
  const last = minOf(from + MAX_QUERY, text.length);
  let end = from;
  while (end < last && !isQueryEnd(text.charCodeAt(end))) end++;
  for (let i = from; i < end; i++) {
    if ((i !== from && text.charCodeAt(i - 1) !== 38) || !text.startsWith(name, i) || text.charCodeAt(i + name.length) !== 61) continue;
    let j = i + name.length + 1;
    while (j < end && isSignatureCode(text.charCodeAt(j))) j++;
    const value = text.slice(i + name.length + 1, j);
    if (value.length >= MIN_SIGNATURE && tokenLooksRandom(value, 10)) return end;
  }
  return -end;
}

/** Spans of the URLs of `re` (ending in `?`), query included, whose query has a random-looking `name` parameter. */
function signedUrls(re: RegExp, text: string, name: string): PiiSpan[] {
  const spans: PiiSpan[] = [];
  re.lastIndex = 0;
  let match: RegExpExecArray | null;
  while ((match = re.exec(text)) !== null) {
    const end = querySignature(text, re.lastIndex, name);
    if (end > 0) spans.push({ start: match.index, end });
    re.lastIndex = end > 0 ? end : -end;
  }
  return spans;
}

/** Spans of the matches of `re` whose secret (group 1) looks random and is not cut from a longer run. */
function secretUrls(re: RegExp, text: string): PiiSpan[] {
  const spans: PiiSpan[] = [];
  re.lastIndex = 0;
  let match: RegExpExecArray | null;
  while ((match = re.exec(text)) !== null) {
    const end = match.index + match[0].length;
    if (!SECRET_CHAR.test(text[end] ?? '') && tokenLooksRandom(match[1], 10) && !ZERO_ID.test(match[0])) spans.push({ start: match.index, end });
  }
  return spans;
}

/** Slack, Discord, Microsoft Teams (connectors and Workflows) and Google Chat webhook URLs. */
export const webhookUrlDetector: PiiDetector = {
  type: 'webhook_url',
  find: (text) => [
    ...(text.includes('hooks.slack') ? secretUrls(SLACK_WEBHOOK, text) : []),
    ...(text.includes('/webhooks/') ? secretUrls(DISCORD_WEBHOOK, text) : []),
    ...(/incomingwebhook/i.test(text) ? secretUrls(TEAMS_WEBHOOK, text) : []),
    ...(/\/workflows\//i.test(text) ? signedUrls(WORKFLOW_TRIGGER, text, 'sig') : []),
    ...(text.includes('chat.googleapis.com') ? signedUrls(GOOGLE_CHAT_WEBHOOK, text, 'token') : []),
  ],
};
