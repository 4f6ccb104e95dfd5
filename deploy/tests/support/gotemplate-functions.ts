/**
 * The values and functions of the test renderer of Go's text/template (gotemplate.ts): Go's int
 * and float64, printing, truth, comparison, and the Sprig functions the chart uses.
 */
import { createHash } from 'node:crypto';
import { dump } from 'js-yaml';

/** A Go integer (int/int64), as opposed to a float64. */
export class GoInt {
  constructor(readonly n: number) {}
}
export class TemplateError extends Error {}
/** `fail "message"` in a template. */
export class TemplateFail extends TemplateError {}

export type Value = unknown;

export const isMap = (v: Value): v is Record<string, Value> => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof GoInt);
const num = (v: Value): number => (v instanceof GoInt ? v.n : typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' && !isNaN(Number(v)) ? Number(v) : 0);

/** Go's fmt %v of a float64: shortest digits, exponent form from 1e21 down to 1e6 and below 1e-4. */
export function formatFloat(f: number): string {
  if (Number.isInteger(f) && Math.abs(f) < 1e6) return String(f);
  const exp = f === 0 ? 0 : Math.floor(Math.log10(Math.abs(f)));
  if (exp < -4 || exp >= 6) {
    const [mantissa, e] = f.toExponential().split('e');
    const n = Number(e);
    return `${mantissa}e${n < 0 ? '-' : '+'}${String(Math.abs(n)).padStart(2, '0')}`;
  }
  return String(f);
}

export function kindOf(v: Value): string {
  if (v === null || v === undefined) return 'invalid';
  if (v instanceof GoInt) return 'int64';
  if (typeof v === 'number') return 'float64';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'string';
  return Array.isArray(v) ? 'slice' : 'map';
}

/** fmt.Sprint of one value. */
export function str(v: Value): string {
  if (v === null || v === undefined) return '';
  if (v instanceof GoInt) return String(v.n);
  if (typeof v === 'number') return formatFloat(v);
  if (typeof v === 'string' || typeof v === 'boolean') return String(v);
  throw new TemplateError(`cannot print a ${kindOf(v)} (use toYaml)`);
}

/** Go's template truth: false, 0, nil, and empty strings, lists and maps are false. */
export function truthy(v: Value): boolean {
  if (v === null || v === undefined || v === false || v === '' || v === 0) return false;
  if (v instanceof GoInt) return v.n !== 0;
  if (Array.isArray(v)) return v.length > 0;
  if (isMap(v)) return Object.keys(v).length > 0;
  return true;
}

function plain(v: Value): Value {
  if (v instanceof GoInt) return v.n;
  if (Array.isArray(v)) return v.map(plain);
  if (isMap(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}

function sprintf(format: string, args: Value[]): string {
  let i = 0;
  return format.replace(/%([%sdvq])/g, (_, verb: string) => {
    if (verb === '%') return '%';
    const arg = args[i++];
    if (verb === 'd') return arg instanceof GoInt ? String(arg.n) : `%!d(${kindOf(arg)}=${str(arg)})`;
    return verb === 'q' ? JSON.stringify(str(arg)) : str(arg);
  });
}

function compare(a: Value, b: Value): number {
  const ka = kindOf(a), kb = kindOf(b);
  const numeric = (k: string) => k === 'int64' || k === 'float64';
  if (ka !== kb && !(ka === 'int64' && kb === 'int64')) {
    throw new TemplateError(`incompatible types for comparison: ${ka} and ${kb}`);
  }
  if (numeric(ka)) return num(a) - num(b);
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}

/** Sprig's urlParse of an absolute URL: scheme (lower-cased), host (port as written), hostname, path, query... */
function urlParse(url: string): Record<string, string> {
  const match = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/(?:([^@/?#]*)@)?([^/?#]*)([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/.exec(url);
  if (!match) throw new TemplateError(`urlParse: not an absolute URL: ${url}`);
  const [, scheme, userinfo = '', host, path, query = '', fragment = ''] = match;
  const hostname = host.startsWith('[') ? host.slice(1, host.indexOf(']')) : host.replace(/:\d*$/, '');
  return { scheme: scheme.toLowerCase(), host, hostname, path, query, opaque: '', fragment, userinfo };
}

const indent = (n: number, s: Value) => str(s).split('\n').map((line) => ' '.repeat(n) + line).join('\n');

export const FUNCTIONS: Record<string, (...args: Value[]) => Value> = {
  default: (d, v) => (truthy(v) ? v : d),
  empty: (v) => !truthy(v),
  quote: (...vs) => vs.map((v) => JSON.stringify(str(v))).join(' '),
  upper: (s) => str(s).toUpperCase(),
  trim: (s) => str(s).trim(),
  trimSuffix: (suffix, s) => (str(s).endsWith(str(suffix)) && str(suffix) ? str(s).slice(0, -str(suffix).length) : str(s)),
  trimPrefix: (prefix, s) => (str(s).startsWith(str(prefix)) ? str(s).slice(str(prefix).length) : str(s)),
  regexFind: (pattern, s) => new RegExp(str(pattern)).exec(str(s))?.[0] ?? '',
  regexMatch: (pattern, s) => new RegExp(str(pattern)).test(str(s)),
  urlParse: (s) => urlParse(str(s)),
  trunc: (n, s) => (num(n) >= 0 ? str(s).slice(0, num(n)) : str(s).slice(num(n))),
  contains: (sub, s) => str(s).includes(str(sub)),
  replace: (from, to, s) => str(s).split(str(from)).join(str(to)),
  indent: (n, s) => indent(num(n), s),
  nindent: (n, s) => `\n${indent(num(n), s)}`,
  toYaml: (v) => (v === null || v === undefined ? 'null' : dump(plain(v), { sortKeys: true, lineWidth: -1, noRefs: true }).replace(/\n$/, '')),
  b64enc: (s) => Buffer.from(str(s), 'utf8').toString('base64'),
  b64dec: (s) => Buffer.from(str(s), 'base64').toString('latin1'),
  sha256sum: (s) => createHash('sha256').update(str(s)).digest('hex'),
  printf: (format, ...args) => sprintf(str(format), args),
  print: (...vs) => vs.map((v, i) => (i > 0 && typeof v !== 'string' && typeof vs[i - 1] !== 'string' ? ' ' : '') + str(v)).join(''),
  dict: (...kv) => Object.fromEntries(Array.from({ length: kv.length / 2 }, (_, i) => [str(kv[2 * i]), kv[2 * i + 1]])),
  list: (...vs) => vs,
  first: (l) => (Array.isArray(l) ? (l[0] ?? null) : null),
  ternary: (a, b, cond) => (cond ? a : b),
  kindIs: (kind, v) => kindOf(v) === str(kind) || (str(kind) === 'int' && v instanceof GoInt),
  int: (v) => new GoInt(Math.trunc(num(v))),
  int64: (v) => new GoInt(Math.trunc(num(v))),
  float64: (v) => num(v),
  len: (v) => new GoInt(typeof v === 'string' ? Buffer.byteLength(v, 'latin1') : Array.isArray(v) ? v.length : isMap(v) ? Object.keys(v).length : 0),
  add: (...vs) => new GoInt(vs.reduce<number>((sum, v) => sum + Math.trunc(num(v)), 0)),
  div: (a, b) => new GoInt(Math.trunc(Math.trunc(num(a)) / Math.trunc(num(b)))),
  not: (v) => !truthy(v),
  eq: (a, ...bs) => bs.some((b) => compare(a, b) === 0),
  ne: (a, b) => compare(a, b) !== 0,
  lt: (a, b) => compare(a, b) < 0,
  le: (a, b) => compare(a, b) <= 0,
  gt: (a, b) => compare(a, b) > 0,
  ge: (a, b) => compare(a, b) >= 0,
  fail: (message) => {
    throw new TemplateFail(str(message));
  },
};

// ---------------------------------------------------------------------------------------------
// Lexing and parsing
// ---------------------------------------------------------------------------------------------
