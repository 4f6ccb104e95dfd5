/**
 * A small renderer of Go's text/template with the Sprig functions the chart uses, enough to render
 * deploy/helm/svc-gateway without a `helm` binary: trim markers, comments, if/else if/else,
 * with, range (lists and maps, sorted keys), define/include/template, variables (`:=`, `=`) and
 * pipelines. Numbers from values are float64 as in Helm (whole numbers from a million on print as
 * 5.24288e+06); int/int64/add/div/len give integers. It is strict where Helm is lenient: a
 * missing map key, an unknown function or printing a map is an error, so a typo fails a test.
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

type Value = unknown;
type Operand =
  | { t: 'field'; base: 'dot' | string | Pipeline; path: string[] }
  | { t: 'lit'; v: Value }
  | { t: 'ident'; name: string };
interface Pipeline { decl: { vars: string[]; op: ':=' | '=' } | null; cmds: Operand[][] }
type Node =
  | { k: 'text'; text: string }
  | { k: 'out'; pipe: Pipeline }
  | { k: 'if'; branches: { cond: Pipeline | null; body: Node[] }[] }
  | { k: 'with' | 'range'; pipe: Pipeline; body: Node[]; elseBody: Node[] }
  | { k: 'template'; name: string; pipe: Pipeline | null };

const isMap = (v: Value): v is Record<string, Value> => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof GoInt);
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

function kindOf(v: Value): string {
  if (v === null || v === undefined) return 'invalid';
  if (v instanceof GoInt) return 'int64';
  if (typeof v === 'number') return 'float64';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'string';
  return Array.isArray(v) ? 'slice' : 'map';
}

/** fmt.Sprint of one value. */
function str(v: Value): string {
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

const FUNCTIONS: Record<string, (...args: Value[]) => Value> = {
  default: (d, v) => (truthy(v) ? v : d),
  empty: (v) => !truthy(v),
  quote: (...vs) => vs.map((v) => JSON.stringify(str(v))).join(' '),
  upper: (s) => str(s).toUpperCase(),
  trim: (s) => str(s).trim(),
  trimSuffix: (suffix, s) => (str(s).endsWith(str(suffix)) && str(suffix) ? str(s).slice(0, -str(suffix).length) : str(s)),
  trimPrefix: (prefix, s) => (str(s).startsWith(str(prefix)) ? str(s).slice(str(prefix).length) : str(s)),
  regexFind: (pattern, s) => new RegExp(str(pattern)).exec(str(s))?.[0] ?? '',
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

interface Action { content: string; line: number }

/** Splits a template into text and action pieces, applying `{{-` / `-}}` trimming. */
function segment(source: string, file: string): (string | Action)[] {
  const pieces: (string | Action)[] = [];
  let pos = 0;
  while (pos < source.length) {
    const open = source.indexOf('{{', pos);
    if (open < 0) {
      pieces.push(source.slice(pos));
      break;
    }
    let text = source.slice(pos, open);
    const leftTrim = /^-[ \t\r\n]/.test(source.slice(open + 2, open + 4));
    if (leftTrim) text = text.replace(/[ \t\r\n]+$/, '');
    pieces.push(text);
    let i = open + 2 + (leftTrim ? 1 : 0);
    let close = -1;
    while (i < source.length) {
      const c = source[i];
      if (c === '"' || c === '`') {
        const end = c === '`' ? source.indexOf('`', i + 1) : (/^"(?:[^"\\\n]|\\.)*"/.exec(source.slice(i))?.[0].length ?? 0) + i - 1;
        if (end < i) throw new TemplateError(`${file}: unterminated string`);
        i = end + 1;
      } else if (source.startsWith('/*', i)) {
        const end = source.indexOf('*/', i + 2);
        if (end < 0) throw new TemplateError(`${file}: unclosed comment`);
        i = end + 2;
      } else if (source.startsWith('}}', i)) {
        close = i;
        break;
      } else i++;
    }
    if (close < 0) throw new TemplateError(`${file}: unclosed action`);
    const rightTrim = /[ \t\r\n]-$/.test(source.slice(close - 2, close));
    const content = source.slice(open + 2 + (leftTrim ? 1 : 0), rightTrim ? close - 1 : close).trim();
    pieces.push({ content, line: source.slice(0, open).split('\n').length });
    pos = close + 2;
    if (rightTrim) pos += /^[ \t\r\n]*/.exec(source.slice(pos))?.[0].length ?? 0;
  }
  return pieces;
}

const TOKEN = /\s*(?:("(?:[^"\\]|\\.)*"|`[^`]*`)|(:=|=|\||\(|\)|,)|(\$[A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)|(\.(?:[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)?)|(-?\d+(?:\.\d+)?(?:e[+-]?\d+)?)|([A-Za-z_][A-Za-z0-9_]*))/y;

function tokenize(content: string, where: string): string[] {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < content.length) {
    if (/^\s*$/.test(content.slice(TOKEN.lastIndex))) break;
    const start = TOKEN.lastIndex;
    const match = TOKEN.exec(content);
    if (!match) throw new TemplateError(`${where}: cannot read "${content.slice(start)}"`);
    tokens.push(match[0].trim());
  }
  return tokens;
}

function parsePipeline(tokens: string[], where: string): Pipeline {
  let decl: Pipeline['decl'] = null;
  const op = tokens.findIndex((t) => t === ':=' || t === '=');
  let rest = tokens;
  if (op > 0 && tokens.slice(0, op).every((t) => t.startsWith('$') || t === ',')) {
    decl = { vars: tokens.slice(0, op).filter((t) => t !== ','), op: tokens[op] as ':=' | '=' };
    rest = tokens.slice(op + 1);
  }
  let i = 0;
  const pipeline = (): Operand[][] => {
    const cmds: Operand[][] = [[]];
    while (i < rest.length && rest[i] !== ')') {
      const t = rest[i++];
      if (t === '|') cmds.push([]);
      else if (t === '(') {
        const inner: Pipeline = { decl: null, cmds: pipeline() };
        if (rest[i++] !== ')') throw new TemplateError(`${where}: unclosed (`);
        cmds[cmds.length - 1].push({ t: 'field', base: inner, path: [] });
      } else cmds[cmds.length - 1].push(operand(t, where));
    }
    if (cmds.some((c) => c.length === 0)) throw new TemplateError(`${where}: empty command`);
    return cmds;
  };
  const cmds = pipeline();
  if (i < rest.length) throw new TemplateError(`${where}: unexpected )`);
  return { decl, cmds };
}

function operand(t: string, where: string): Operand {
  if (t.startsWith('"')) return { t: 'lit', v: JSON.parse(t) as string };
  if (t.startsWith('`')) return { t: 'lit', v: t.slice(1, -1) };
  if (t.startsWith('$')) {
    const [name, ...path] = t.split('.');
    return { t: 'field', base: name, path };
  }
  if (t === '.') return { t: 'field', base: 'dot', path: [] };
  if (t.startsWith('.')) return { t: 'field', base: 'dot', path: t.slice(1).split('.') };
  if (/^-?\d/.test(t)) return { t: 'lit', v: /[.e]/.test(t) ? Number(t) : new GoInt(Number(t)) };
  if (t === 'true' || t === 'false') return { t: 'lit', v: t === 'true' };
  if (t === 'nil') return { t: 'lit', v: null };
  if (!(t in FUNCTIONS) && t !== 'include' && t !== 'and' && t !== 'or') throw new TemplateError(`${where}: unknown function ${t}`);
  return { t: 'ident', name: t };
}

export class Templates {
  private readonly defines = new Map<string, Node[]>();

  /** Parses a file: its `define`s become includable, its top level is registered under `name`. */
  add(name: string, source: string): void {
    const pieces = segment(source, name);
    let index = 0;
    const parseList = (stopAt: string[]): { nodes: Node[]; stop: string; rest: string[] } => {
      const nodes: Node[] = [];
      while (index < pieces.length) {
        const piece = pieces[index++];
        if (typeof piece === 'string') {
          if (piece) nodes.push({ k: 'text', text: piece });
          continue;
        }
        if (piece.content.startsWith('/*')) continue;
        const where = `${name}:${piece.line}`;
        const [keyword, ...tokens] = tokenize(piece.content, where);
        if (stopAt.includes(keyword)) return { nodes, stop: keyword, rest: tokens };
        if (keyword === 'if') {
          const branches: { cond: Pipeline | null; body: Node[] }[] = [];
          let cond: Pipeline | null = parsePipeline(tokens, where);
          for (;;) {
            const part = parseList(['else', 'end']);
            branches.push({ cond, body: part.nodes });
            if (part.stop === 'end') break;
            cond = part.rest[0] === 'if' ? parsePipeline(part.rest.slice(1), where) : null;
          }
          nodes.push({ k: 'if', branches });
        } else if (keyword === 'with' || keyword === 'range') {
          const body = parseList(['else', 'end']);
          const elseBody = body.stop === 'else' ? parseList(['end']).nodes : [];
          nodes.push({ k: keyword, pipe: parsePipeline(tokens, where), body: body.nodes, elseBody });
        } else if (keyword === 'define') {
          const defined = JSON.parse(tokens[0]) as string;
          this.defines.set(defined, parseList(['end']).nodes);
        } else if (keyword === 'template') {
          nodes.push({ k: 'template', name: JSON.parse(tokens[0]) as string, pipe: tokens.length > 1 ? parsePipeline(tokens.slice(1), where) : null });
        } else if (keyword === 'else' || keyword === 'end') {
          throw new TemplateError(`${where}: ${keyword} outside a block`);
        } else {
          nodes.push({ k: 'out', pipe: parsePipeline([keyword, ...tokens], where) });
        }
      }
      if (stopAt.length) throw new TemplateError(`${name}: missing {{ end }}`);
      return { nodes, stop: '', rest: [] };
    };
    this.defines.set(name, parseList([]).nodes);
  }

  has(name: string): boolean {
    return this.defines.has(name);
  }

  /** Renders a file or a define with `data` as both `.` and `$`. */
  render(name: string, data: Value): string {
    const nodes = this.defines.get(name);
    if (!nodes) throw new TemplateError(`no template "${name}"`);
    return this.exec(nodes, data, [new Map([['$', data]])]);
  }

  private exec(nodes: Node[], dot: Value, scopes: Map<string, Value>[]): string {
    let out = '';
    for (const node of nodes) {
      if (node.k === 'text') out += node.text;
      else if (node.k === 'out') {
        const value = this.pipe(node.pipe, dot, scopes);
        if (!node.pipe.decl) out += str(value);
      } else if (node.k === 'if') {
        const branch = node.branches.find((b) => b.cond === null || truthy(this.pipe(b.cond, dot, scopes)));
        if (branch) out += this.exec(branch.body, dot, [...scopes, new Map()]);
      } else if (node.k === 'with') {
        const value = this.pipe({ ...node.pipe, decl: null }, dot, scopes);
        const scope = new Map<string, Value>(node.pipe.decl ? [[node.pipe.decl.vars[0], value]] : []);
        out += truthy(value) ? this.exec(node.body, value, [...scopes, scope]) : this.exec(node.elseBody, dot, [...scopes, new Map()]);
      } else if (node.k === 'range') {
        const value = this.pipe({ ...node.pipe, decl: null }, dot, scopes);
        const entries: [Value, Value][] = Array.isArray(value)
          ? value.map((v, i) => [new GoInt(i), v])
          : isMap(value) ? Object.keys(value).sort().map((k) => [k, value[k]]) : [];
        if (entries.length === 0) out += this.exec(node.elseBody, dot, [...scopes, new Map()]);
        for (const [key, element] of entries) {
          const vars = node.pipe.decl?.vars ?? [];
          const scope = new Map<string, Value>(vars.length === 2 ? [[vars[0], key], [vars[1], element]] : vars.length === 1 ? [[vars[0], element]] : []);
          out += this.exec(node.body, element, [...scopes, scope]);
        }
      } else if (node.k === 'template') {
        out += this.render(node.name, node.pipe ? this.pipe(node.pipe, dot, scopes) : null);
      }
    }
    return out;
  }

  private pipe(pipeline: Pipeline, dot: Value, scopes: Map<string, Value>[]): Value {
    let value: Value = undefined;
    pipeline.cmds.forEach((cmd, i) => {
      value = this.command(cmd, dot, scopes, i > 0 ? [value] : []);
    });
    if (pipeline.decl) {
      const [name] = pipeline.decl.vars;
      if (pipeline.decl.op === ':=') scopes[scopes.length - 1].set(name, value);
      else {
        const scope = [...scopes].reverse().find((s) => s.has(name));
        if (!scope) throw new TemplateError(`undefined variable ${name}`);
        scope.set(name, value);
      }
    }
    return value;
  }

  private command(cmd: Operand[], dot: Value, scopes: Map<string, Value>[], piped: Value[]): Value {
    const [head, ...args] = cmd;
    if (head.t !== 'ident') {
      if (args.length || piped.length) throw new TemplateError('a value cannot take arguments');
      return this.operand(head, dot, scopes);
    }
    const evaluate = (op: Operand) => this.operand(op, dot, scopes);
    if (head.name === 'and' || head.name === 'or') {
      const ops: (() => Value)[] = [...args.map((op) => () => evaluate(op)), ...piped.map((v) => () => v)];
      let result: Value = undefined;
      for (const next of ops) {
        result = next();
        if (truthy(result) === (head.name === 'or')) return result;
      }
      return result;
    }
    const values = [...args.map(evaluate), ...piped];
    if (head.name === 'include') return this.render(str(values[0]), values[1]);
    return FUNCTIONS[head.name](...values);
  }

  private operand(op: Operand, dot: Value, scopes: Map<string, Value>[]): Value {
    if (op.t === 'lit') return op.v;
    if (op.t === 'ident') return this.command([op], dot, scopes, []);
    let value: Value;
    if (op.base === 'dot') value = dot;
    else if (typeof op.base === 'string') {
      const scope = [...scopes].reverse().find((s) => s.has(op.base as string));
      if (!scope) throw new TemplateError(`undefined variable ${op.base}`);
      value = scope.get(op.base);
    } else value = this.pipe(op.base, dot, scopes);
    for (const key of op.path) {
      if (!isMap(value)) throw new TemplateError(`cannot read .${key} of a ${kindOf(value)} (.${op.path.join('.')})`);
      if (!(key in value)) throw new TemplateError(`missing key .${op.path.join('.')}`);
      value = value[key];
    }
    return value;
  }
}
