/**
 * A small renderer of Go's text/template with the Sprig functions the chart uses, enough to render
 * deploy/helm/svc-gateway without a `helm` binary: trim markers, comments, if/else if/else,
 * with, range (lists and maps, sorted keys), define/include/template, variables (`:=`, `=`) and
 * pipelines. Numbers from values are float64 as in Helm (whole numbers from a million on print as
 * 5.24288e+06); int/int64/add/div/len give integers. It is strict where Helm is lenient: a
 * missing map key, an unknown function or printing a map is an error, so a typo fails a test.
 */
import { FUNCTIONS, GoInt, isMap, kindOf, str, TemplateError, truthy, Value } from './gotemplate-functions';

export { formatFloat, GoInt, TemplateError, TemplateFail, truthy } from './gotemplate-functions';

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
