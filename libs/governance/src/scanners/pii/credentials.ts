import { alnumAt, isDigitCode, isLetterCode, looksRandom, matchSpans, minOf } from '../text-utils';
import { PiiDetector } from './types';

/**
 * Credential detectors (HIGH). Each pattern starts with a literal or keyword, has bounded
 * quantifiers only, and the matched value must look random (digits and letters, a long
 * alphanumeric run), so placeholders such as `sk-...` or `<API_KEY>` are not reported.
 */

const KEY_CHAR = /[A-Za-z0-9_-]/;

function keyBoundaryBefore(text: string, index: number): boolean {
  return index === 0 || !KEY_CHAR.test(text[index - 1]);
}

const ANTHROPIC_KEY = /sk-ant-[A-Za-z0-9_-]{20,256}/g;
const OPENAI_KEY = /sk-(?!ant-)[A-Za-z0-9_-]{20,256}/g;
const GATEWAY_KEY = /svc_sk_[A-Za-z0-9]{16,128}/g;

export const anthropicKeyDetector: PiiDetector = {
  type: 'anthropic_api_key',
  find: (text) =>
    !text.includes('sk-ant-') ? [] : matchSpans(ANTHROPIC_KEY, text, (m) => keyBoundaryBefore(text, m.index) && looksRandom(m[0].slice(7), 16)),
};

export const openaiKeyDetector: PiiDetector = {
  type: 'openai_api_key',
  find: (text) =>
    !text.includes('sk-') ? [] : matchSpans(OPENAI_KEY, text, (m) => keyBoundaryBefore(text, m.index) && looksRandom(m[0].slice(3), 16)),
};

export const gatewayKeyDetector: PiiDetector = {
  type: 'gateway_api_key',
  find: (text) =>
    !text.includes('svc_sk_')
      ? []
      : matchSpans(GATEWAY_KEY, text, (m) => keyBoundaryBefore(text, m.index) && looksRandom(m[0].slice(7), 16)),
};

const BEARER = /\bbearer[ \t]{1,4}([A-Za-z0-9._~+/-]{20,2048})/gi;
const JWT = /eyJ[A-Za-z0-9_-]{5,2048}\.eyJ[A-Za-z0-9_-]{5,8192}\.[A-Za-z0-9_-]{0,2048}/g;

/** `Bearer <token>` with a random-looking token, and bare JWTs (signed or not). */
export const bearerTokenDetector: PiiDetector = {
  type: 'bearer_token',
  find: (text) => {
    const bearer = /bearer/i.test(text) ? matchSpans(BEARER, text, (m) => looksRandom(m[1], 8)) : [];
    if (!text.includes('eyJ')) return bearer;
    const jwt = matchSpans(JWT, text, (m) => keyBoundaryBefore(text, m.index) && !bearer.some((span) => span.start === m.index - 7));
    return [...bearer, ...jwt];
  },
};

const AWS_KEY_ID = /A(?:KIA|SIA|GPA|IDA|ROA|IPA|NPA|NVA|BIA|CCA)[A-Z0-9]{16}/g;
const AWS_SECRET = /aws_?secret_?access_?key["']?[ \t]{0,4}[:=][ \t]{0,4}["']?[A-Za-z0-9/+]{40}/gi;
const GOOGLE_API_KEY = /AIza[0-9A-Za-z_-]{35}/g;
const AZURE_ACCOUNT_KEY = /AccountKey=[A-Za-z0-9+/]{86}==/g;

/**
 * Cloud credentials: AWS access key ids (AKIA, ASIA, ...; not placeholders such as
 * `AKIAXXXXXXXXXXXXXXXX`) and secret keys, Google API keys, Azure storage keys.
 */
export const cloudKeyDetector: PiiDetector = {
  type: 'cloud_access_key',
  find: (text) => [
    ...matchSpans(AWS_KEY_ID, text, (m) => !alnumAt(text, m.index - 1) && !alnumAt(text, m.index + 20) && !/X{4}|0{8}/.test(m[0].slice(4))),
    ...(/aws_?secret/i.test(text)
      ? matchSpans(AWS_SECRET, text, (m) => !/[A-Za-z0-9/+]/.test(text[m.index + m[0].length] ?? ''))
      : []),
    ...(text.includes('AIza')
      ? matchSpans(GOOGLE_API_KEY, text, (m) => keyBoundaryBefore(text, m.index) && !KEY_CHAR.test(text[m.index + 39] ?? ''))
      : []),
    ...(text.includes('AccountKey=') ? matchSpans(AZURE_ACCOUNT_KEY, text) : []),
  ],
};

/**
 * GitHub tokens: classic and OAuth/app/refresh tokens (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_` and
 * 36 base62 characters) and fine-grained personal access tokens (`github_pat_` and 82 word characters).
 */
const GITHUB_TOKEN = /gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{82}/g;

/** A random token body: at least `distinct` different characters and no run such as `xxxx` (placeholders). */
export function tokenLooksRandom(value: string, distinct: number): boolean {
  return new Set(value).size >= distinct && !/x{4}|X{4}|0{8}/.test(value);
}

export const githubTokenDetector: PiiDetector = {
  type: 'github_token',
  find: (text) =>
    !text.includes('gh') && !text.includes('github_pat_')
      ? []
      : matchSpans(GITHUB_TOKEN, text, (m) => {
          const prefix = m[0].startsWith('github_pat_') ? 11 : 4;
          return !alnumAt(text, m.index - 1) && !KEY_CHAR.test(text[m.index + m[0].length] ?? '') && tokenLooksRandom(m[0].slice(prefix), 10);
        }),
};

/**
 * Slack tokens: bot, user, workspace-app, refresh, legacy session and rotating tokens (`xoxb-`,
 * `xoxp-`, `xoxa-`, `xoxr-`, `xoxs-`, `xoxe-`; `xoxe.xoxb-...` is found at its `xoxb-`) and
 * app-level tokens (`xapp-1-A0123456789-...`), whose bodies hold numeric ids: a digit is required.
 */
const SLACK_TOKEN = /(?:xox[abeprs]|xapp)-[A-Za-z0-9-]{10,250}/g;

export const slackTokenDetector: PiiDetector = {
  type: 'slack_token',
  find: (text) =>
    !text.includes('xox') && !text.includes('xapp-')
      ? []
      : matchSpans(SLACK_TOKEN, text, (m) => {
          const body = m[0].slice(5);
          return !alnumAt(text, m.index - 1) && !KEY_CHAR.test(text[m.index + m[0].length] ?? '') && looksRandom(body, 8) && tokenLooksRandom(body, 8);
        }),
};

const SECRET_ASSIGNMENT =
  /(?<![A-Za-z0-9])(?:api[_-]?key|apikey|secret[_-]?key|client[_-]?secret|app[_-]?secret|secret|(passwd|password|passphrase|pwd)|access[_-]?token|auth[_-]?token|refresh[_-]?token|private[_-]?key|token)["']?[ \t]{0,4}[:=][ \t]{0,4}["']?([^\s"'`,;()[\]{}<>]{6,256})/gi;
/** Passwords are often shorter than keys: 6 or 7 characters count when they hold a digit or a symbol. */
const SHORT_PASSWORD = /[0-9!#$%&*+=?@^~|]/;
const PRIVATE_KEY_BLOCK = /-----BEGIN (?:RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP )?PRIVATE KEY(?: BLOCK)?-----/g;
const BASIC_AUTH = /authorization["']?[ \t]{0,4}:[ \t]{0,4}["']?basic[ \t]{1,4}([A-Za-z0-9+/]{8,512}={0,2})/gi;
const URL_CREDENTIALS = /:\/\/([^\s:/@]{1,128}):([^\s:/@]{1,128})@/g;

/** Values with their own credential type are reported as that type only. */
const SPECIFIC_KEY = /^(?:sk-|svc_sk_|AKIA|ASIA|AIza|eyJ|gh[pousr]_|github_pat_|xox[abeprs]-|xapp-)/;
const PLACEHOLDER_WORDS = ['password', 'passwd', 'changeme', 'redacted', 'placeholder', 'example', 'secret', 'undefined', 'your'];
const SECRET_SYMBOLS = '!#$%&*+=?@^~|';

function isDottedIdentifier(value: string): boolean {
  const parts = value.split('.');
  return parts.length > 1 && parts.every((part) => /^[A-Za-z_][A-Za-z0-9_]{0,255}$/.test(part));
}

/** A secret value, not a placeholder, an identifier, a variable reference or a plain word. */
export function secretValueOk(raw: string, minLength = 8): boolean {
  const last = raw.charCodeAt(raw.length - 1);
  const value = last === 46 || last === 58 ? raw.slice(0, -1) : raw;
  if (value.length < minLength || '$%*#&@/\\'.includes(value[0])) return false;
  // The character classes first: they reject plain words without allocating.
  let digit = false;
  let upper = false;
  let lowerCase = false;
  let symbol = false;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (isDigitCode(code)) digit = true;
    else if (code >= 65 && code <= 90) upper = true;
    else if (code >= 97 && code <= 122) lowerCase = true;
    else if (SECRET_SYMBOLS.includes(value[i])) symbol = true;
  }
  if (!digit && !(upper && lowerCase) && !symbol) return false;
  const lower = value.toLowerCase();
  if (PLACEHOLDER_WORDS.some((word) => lower.startsWith(word)) || /x{4}|\*{3}|\.{3}/.test(lower)) return false;
  return new Set(value).size >= minOf(4, minLength) && !isDottedIdentifier(value);
}

/** `&name=` in a value: the next parameter of a URL query (`?token=abc&page=2`), where the value ends. */
const NEXT_QUERY_PARAMETER = /&[A-Za-z_][A-Za-z0-9_.-]{0,64}=/;
/** Word parts of an identifier that name a secret: `accessToken`, `newPassword`, `client_secret`, `apiKey`. */
const SECRET_WORDS = new Set(['token', 'tokens', 'password', 'passwd', 'pass', 'pwd', 'secret', 'secrets', 'key', 'keys', 'apikey', 'credential', 'credentials', 'auth']);

/** A value of letters (and `_`) only whose camelCase or snake_case parts name a secret: a variable, not its value. */
function namesASecret(value: string): boolean {
  if (value.length > 64) return false;
  let partStart = 0;
  for (let i = 0; i <= value.length; i++) {
    const code = i < value.length ? value.charCodeAt(i) : 95;
    const upper = code >= 65 && code <= 90;
    if (!upper && code !== 95 && !(code >= 97 && code <= 122)) return false;
    const lowerBefore = i > 0 && value.charCodeAt(i - 1) >= 97 && value.charCodeAt(i - 1) <= 122;
    if (code === 95 || (upper && lowerBefore)) {
      if (i > partStart && i - partStart <= 11 && SECRET_WORDS.has(value.slice(partStart, i).toLowerCase())) return true;
      partStart = code === 95 ? i + 1 : i;
    }
  }
  return false;
}

/**
 * The value of a secret assignment: at least 8 characters that look like a secret (6 for a
 * password with a digit or a symbol), cut at the next URL query parameter. Code is not a
 * secret: an unquoted value followed by `(` or `[` is a call or a type (`getPassword()`,
 * `Optional[str]`), and an identifier naming a secret is a variable (`{ token: accessToken }`).
 */
function secretAssignmentOk(text: string, match: RegExpExecArray): boolean {
  let value = match[2];
  const next = value.indexOf('&') < 0 ? null : NEXT_QUERY_PARAMETER.exec(value);
  if (next) value = value.slice(0, next.index);
  if (SPECIFIC_KEY.test(value) || namesASecret(value)) return false;
  const length = value.length - (value.endsWith('.') || value.endsWith(':') ? 1 : 0);
  const secret = length >= 8 ? secretValueOk(value) : match[1] !== undefined && SHORT_PASSWORD.test(value) && secretValueOk(value, 6);
  if (!secret) return false;
  if (next) return true;
  // A call or a type in code: an unquoted value directly followed by `(` or `[`.
  const end = match.index + match[0].length;
  const quote = text.charCodeAt(end - match[2].length - 1);
  return quote === 34 || quote === 39 || (text.charCodeAt(end) !== 40 && text.charCodeAt(end) !== 91);
}

function basicAuthOk(encoded: string): boolean {
  if (encoded.length % 4 !== 0) return false;
  const decoded = Buffer.from(encoded, 'base64').toString('latin1');
  const colon = decoded.indexOf(':');
  return colon > 0 && colon < decoded.length - 1 && /^[\x20-\x7e]{3,384}$/.test(decoded);
}

function urlCredentialsOk(text: string, match: RegExpExecArray): boolean {
  const before = match.index - 1;
  if (before < 0 || !isLetterCode(text.charCodeAt(before))) return false;
  return !SPECIFIC_KEY.test(match[2]) && secretValueOk(match[2], 4);
}

/** Secret assignments (`api_key=...`, `"password": "..."`), private key blocks, basic auth and URL credentials. */
export const genericSecretDetector: PiiDetector = {
  type: 'generic_secret',
  find: (text) => {
    const assigns = text.includes('=') || text.includes(':');
    return [
      ...(assigns ? matchSpans(SECRET_ASSIGNMENT, text, (m) => secretAssignmentOk(text, m)) : []),
      ...(text.includes('PRIVATE KEY') ? matchSpans(PRIVATE_KEY_BLOCK, text) : []),
      ...(assigns && /basic/i.test(text) ? matchSpans(BASIC_AUTH, text, (m) => basicAuthOk(m[1])) : []),
      ...(text.includes('://') ? matchSpans(URL_CREDENTIALS, text, (m) => urlCredentialsOk(text, m)) : []),
    ];
  },
};
