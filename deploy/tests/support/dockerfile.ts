/**
 * A small reader of Dockerfiles and .dockerignore files, enough to check deploy/docker without a
 * Docker engine: instructions (line continuations, comments, JSON and shell forms), stages, and
 * Docker's ignore-pattern matching.
 */

export const INSTRUCTIONS = [
  'ADD', 'ARG', 'CMD', 'COPY', 'ENTRYPOINT', 'ENV', 'EXPOSE', 'FROM', 'HEALTHCHECK', 'LABEL',
  'MAINTAINER', 'ONBUILD', 'RUN', 'SHELL', 'STOPSIGNAL', 'USER', 'VOLUME', 'WORKDIR',
] as const;
export type Keyword = (typeof INSTRUCTIONS)[number];

export interface Instruction {
  keyword: Keyword;
  /** Everything after the keyword, continuation lines joined with a space. */
  args: string;
  /** `--name=value` flags at the start of args (COPY --from, FROM --platform, ...). */
  flags: Record<string, string>;
  /** args without the flags. */
  rest: string;
  /** The JSON (exec) form, when args is a JSON array of strings. */
  json: string[] | null;
  /** 1-based line of the keyword. */
  line: number;
}

export interface Stage {
  /** The image or earlier stage it starts from. */
  base: string;
  name: string | null;
  index: number;
  instructions: Instruction[];
}

export class DockerfileSyntaxError extends Error {}

function parseFlags(args: string): { flags: Record<string, string>; rest: string } {
  const flags: Record<string, string> = {};
  let rest = args.trim();
  for (let match = /^--([a-z-]+)(?:=(\S+))?\s*/.exec(rest); match; match = /^--([a-z-]+)(?:=(\S+))?\s*/.exec(rest)) {
    flags[match[1]] = match[2] ?? 'true';
    rest = rest.slice(match[0].length);
  }
  return { flags, rest };
}

function parseJson(args: string): string[] | null {
  if (!args.trim().startsWith('[')) return null;
  try {
    const value: unknown = JSON.parse(args);
    return Array.isArray(value) && value.every((item) => typeof item === 'string') ? value : null;
  } catch {
    return null;
  }
}

/** Splits a Dockerfile into instructions. Throws DockerfileSyntaxError on what Docker would refuse. */
export function parseDockerfile(text: string): Instruction[] {
  const lines = text.split(/\r?\n/);
  let escape = '\\';
  // Parser directives: `# escape=` comments at the very top, before any other line.
  for (const line of lines) {
    const directive = /^#\s*escape\s*=\s*(\S)\s*$/i.exec(line);
    if (!directive) break;
    escape = directive[1];
  }
  const instructions: Instruction[] = [];
  let parts: string[] = [];
  let start = 0;
  for (const [i, raw] of lines.entries()) {
    const trimmed = raw.trim();
    // Comment lines (also inside a continued instruction) and blank lines are skipped.
    if (trimmed.startsWith('#') || trimmed === '') continue;
    const continued = trimmed.endsWith(escape);
    if (parts.length === 0) start = i + 1;
    parts.push(continued ? trimmed.slice(0, -1).trim() : trimmed);
    if (continued) continue;
    instructions.push(toInstruction(parts.join(' ').trim(), start));
    parts = [];
  }
  if (parts.length) throw new DockerfileSyntaxError(`line ${start}: the file ends inside a continued instruction`);
  if (instructions.length === 0) throw new DockerfileSyntaxError('no instructions');
  const first = instructions.find((instruction) => instruction.keyword !== 'ARG');
  if (!first || first.keyword !== 'FROM') throw new DockerfileSyntaxError('the first instruction (after global ARGs) must be FROM');
  return instructions;
}

function toInstruction(source: string, line: number): Instruction {
  const match = /^(\S+)(?:\s+([\s\S]*))?$/.exec(source);
  const keyword = (match?.[1] ?? '').toUpperCase();
  if (!(INSTRUCTIONS as readonly string[]).includes(keyword)) {
    throw new DockerfileSyntaxError(`line ${line}: unknown instruction ${match?.[1] ?? source}`);
  }
  const args = (match?.[2] ?? '').trim();
  if (!args) throw new DockerfileSyntaxError(`line ${line}: ${keyword} needs arguments`);
  if (/<<-?["']?[A-Za-z_]/.test(args) && (keyword === 'RUN' || keyword === 'COPY')) {
    throw new DockerfileSyntaxError(`line ${line}: heredocs are not supported by this reader`);
  }
  const { flags, rest } = parseFlags(args);
  const json = parseJson(rest);
  if (rest.trim().startsWith('[') && !json && ['CMD', 'ENTRYPOINT', 'SHELL'].includes(keyword)) {
    throw new DockerfileSyntaxError(`line ${line}: ${keyword} looks like JSON but is not an array of strings`);
  }
  return { keyword: keyword as Keyword, args, flags, rest, json, line };
}

/** Groups instructions into build stages (FROM ... [AS name]). */
export function stagesOf(instructions: Instruction[]): Stage[] {
  const stages: Stage[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') {
      const [base, as, name, ...extra] = instruction.rest.split(/\s+/);
      if ((as && as.toUpperCase() !== 'AS') || (as && !name) || extra.length) {
        throw new DockerfileSyntaxError(`line ${instruction.line}: FROM <image> [AS <name>]`);
      }
      stages.push({ base, name: name ?? null, index: stages.length, instructions: [] });
    } else if (stages.length) {
      stages[stages.length - 1].instructions.push(instruction);
    }
  }
  return stages;
}

/** `${NAME}`, `${NAME:-default}` and `$NAME` references in a piece of Dockerfile text. */
export function variableReferences(text: string): string[] {
  const names = new Set<string>();
  for (const match of text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::[-+][^}]*)?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g)) {
    names.add(match[1] ?? match[2]);
  }
  return [...names];
}

/** Names an instruction declares: ARG NAME[=default], ENV NAME=value ... */
export function declaredNames(instruction: Instruction): string[] {
  if (instruction.keyword === 'ARG') return [instruction.rest.split('=')[0].trim()];
  if (instruction.keyword !== 'ENV') return [];
  return [...instruction.rest.matchAll(/(?:^|\s)([A-Za-z_][A-Za-z0-9_]*)=/g)].map((match) => match[1]);
}

/** Source paths of COPY/ADD (everything but the destination), JSON or shell form. */
export function copySources(instruction: Instruction): string[] {
  const parts = instruction.json ?? instruction.rest.split(/\s+/);
  return parts.slice(0, -1);
}

/**
 * Docker's .dockerignore semantics (moby/patternmatcher): patterns are cleaned paths relative
 * to the context, `*` and `?` stay within one path segment, `**` spans any number of segments,
 * `!` re-includes, the last matching pattern wins, and excluding a directory excludes what is in it
 * (re-including a path below an excluded directory is not modelled; the project's file has no `!`).
 */
export class DockerIgnore {
  private readonly rules: { exclude: boolean; regex: RegExp; pattern: string }[];

  constructor(text: string) {
    this.rules = text
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#'))
      .map((line) => {
        const exclude = !line.startsWith('!');
        const pattern = (exclude ? line : line.slice(1).trim()).replace(/^\/+/, '').replace(/\/+$/, '');
        return { exclude, regex: DockerIgnore.toRegex(pattern), pattern };
      });
  }

  get patterns(): string[] {
    return this.rules.map((rule) => (rule.exclude ? rule.pattern : `!${rule.pattern}`));
  }

  private static toRegex(pattern: string): RegExp {
    let source = '';
    for (let i = 0; i < pattern.length; i++) {
      const char = pattern[i];
      if (char === '*' && pattern[i + 1] === '*') {
        const slash = pattern[i + 2] === '/';
        source += slash ? '(?:.*/)?' : '.*';
        i += slash ? 2 : 1;
      } else if (char === '*') source += '[^/]*';
      else if (char === '?') source += '[^/]';
      else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    }
    return new RegExp(`^${source}$`);
  }

  /** True when `path` (relative to the context, `/`-separated) is left out of the build context. */
  excludes(path: string): boolean {
    const segments = path.replace(/^\.\//, '').split('/').filter(Boolean);
    // A path is out when it or any directory above it is out (the last matching rule decides).
    for (let depth = 1; depth <= segments.length; depth++) {
      if (this.decide(segments.slice(0, depth).join('/'))) return true;
    }
    return false;
  }

  private decide(path: string): boolean {
    let excluded = false;
    for (const rule of this.rules) if (rule.regex.test(path)) excluded = rule.exclude;
    return excluded;
  }
}
