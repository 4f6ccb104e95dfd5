import { ExtractedText, extractTexts, isPlainKey } from './extract';

export { isPlainKey };

/**
 * Every text of a D catch-all body (`ANY /v1/{provider_d}/{path}`), for the PII (4), content-safety
 * (4.5) and security (4.6) scans. The catch-all forwards bodies of shapes the gateway does not know
 * (a batch as an array, a rerank's `query` and `documents`, a classifier's `inputs`, nested
 * requests), so reading known fields only would let text reach the provider unscanned:
 *
 * - an object body's known fields are extracted as on the chat routes (`extractTexts`, with their
 *   roles: a `system` message or `instructions` stays `system`, so the safety stages treat it as
 *   they do on a chat body);
 * - every other string value at any depth (object values and array items), role `input`
 *   (untrusted: scanned by every stage), path as in the body (`[0].input`, `documents[2]`,
 *   `requests[1].body.messages[0].content`); a bare JSON string body is path `body`;
 * - every object key that is not a plain name (`isPlainKey`: at most 64 letters, digits, `_`, `$`
 *   or `-`, not starting with a digit or `-`, at most four digits), role `input`: an e-mail
 *   address, a card number or an IBAN as a key is forwarded as surely as a value. Such a key
 *   stands in paths as `[*N]`, N its position in its object (`metadata[*0]`), and is scanned
 *   under `metadata[*0](key)`: a finding's path never repeats it, and every path is unique (4.7
 *   finds a finding's text by its path);
 * - not extracted: base64 payloads (`isBase64Payload`: a `data:` URL with `;base64,` or a string
 *   of at least 256 characters of the base64 alphabet alone), which are images, audio or files as
 *   an `image_url` is on a chat body, and whose random letters and digits matched the PII checksums
 *   (an IBAN in about one 20 KB image in fifty); numbers, booleans and `null`.
 *
 * Bounded: the body is size-limited and nested at most 128 levels (`parseProxyBody`); the walk
 * needs no recursion. Past MAX_BODY_TEXTS texts (known fields included), the remaining strings are
 * joined, one per line, into one text whose path names the first and the last of them
 * (`[10000].input to [49999].input`): every string is still scanned, at a fraction of the cost of
 * one scan per string (a 1 MB array of short strings is 200,000 of them).
 */

/** Texts with their own path per catch-all body; the rest is scanned as one text. */
export const MAX_BODY_TEXTS = 10_000;
/** A string of the base64 alphabet alone this long or longer is a payload, not text. */
export const MIN_BASE64_PAYLOAD_CHARS = 256;

type Json = Record<string, unknown>;

interface Node {
  value: unknown;
  /** Unique in the body: the 4.7 classifier and the PII findings find a text by its path. */
  path: string;
  /**
   * Under a top-level field `extractTexts` read, which writes paths as this walk does: a node at a
   * path it extracted is skipped.
   */
  known: boolean;
  /** The node's key when it is not a plain name: scanned as a text of its own, before the value. */
  key?: string;
}

const BASE64 = /[A-Za-z0-9+/_-]*={0,2}$/y;

/** A `data:...;base64,` URL, or MIN_BASE64_PAYLOAD_CHARS or more of the base64 (or base64url) alphabet alone. */
export function isBase64Payload(text: string): boolean {
  let from = 0;
  if (text.startsWith('data:')) {
    const comma = text.indexOf(',');
    if (comma < 0 || comma > 256 || !text.slice(0, comma).toLowerCase().endsWith(';base64')) return false;
    from = comma + 1;
  } else if (text.length < MIN_BASE64_PAYLOAD_CHARS) {
    return false;
  }
  BASE64.lastIndex = from;
  return BASE64.test(text);
}

function rootOf(path: string): string {
  const end = path.search(/[.[]/);
  return end < 0 ? path : path.slice(0, end);
}

class Collector {
  readonly out: ExtractedText[];
  private readonly rest: string[] = [];
  private firstRest = '';
  private lastRest = '';

  constructor(known: ExtractedText[]) {
    this.out = known;
  }

  add(path: string, text: string): void {
    if (text.length === 0 || isBase64Payload(text)) return;
    if (this.out.length < MAX_BODY_TEXTS) {
      this.out.push({ path, text, role: 'input' });
      return;
    }
    if (this.rest.length === 0) this.firstRest = path;
    this.lastRest = path;
    this.rest.push(text);
  }

  finish(): ExtractedText[] {
    if (this.rest.length > 0) {
      const path = this.rest.length === 1 ? this.firstRest : `${this.firstRest} to ${this.lastRest}`;
      this.out.push({ path, text: this.rest.join('\n'), role: 'input' });
    }
    return this.out;
  }
}

export function extractBodyTexts(body: unknown): ExtractedText[] {
  if (body === undefined || body === null) return [];
  if (typeof body === 'string') {
    const collector = new Collector([]);
    collector.add('body', body);
    return collector.finish();
  }
  if (typeof body !== 'object') return [];
  const extracted = Array.isArray(body) ? [] : extractTexts(body);
  const covered = new Set(extracted.map((text) => text.path));
  const roots = new Set(extracted.map((text) => rootOf(text.path)));
  const collector = new Collector(extracted);
  const stack: Node[] = [{ value: body, path: '', known: false }];
  while (stack.length > 0) {
    const { value, path, known, key } = stack.pop() as Node;
    if (key !== undefined) collector.add(`${path}(key)`, key);
    if (known && covered.has(path)) continue;
    if (typeof value === 'string') {
      collector.add(path, value);
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) {
        stack.push({ value: value[i], path: `${path}[${i}]`, known });
      }
    } else if (typeof value === 'object' && value !== null) {
      const children: Node[] = [];
      let index = 0;
      for (const [name, child] of Object.entries(value as Json)) {
        const plain = isPlainKey(name);
        const at = plain ? (path === '' ? name : `${path}.${name}`) : `${path}[*${index}]`;
        children.push({ value: child, path: at, known: path === '' ? roots.has(name) : known, key: plain ? undefined : name });
        index++;
      }
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
    }
  }
  return collector.finish();
}
