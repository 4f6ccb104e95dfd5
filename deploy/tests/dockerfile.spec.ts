import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { configSchema } from '@svc/platform';
import { ROOT, SERVICES } from './support/chart';
import { DEFINITIONS } from './support/routes';
import {
  copySources, declaredNames, DockerfileSyntaxError, DockerIgnore, Instruction, parseDockerfile, Stage, stagesOf, variableReferences,
} from './support/dockerfile';

const DOCKER_DIR = join(ROOT, 'deploy', 'docker');
const dockerfiles = readdirSync(DOCKER_DIR).filter((name) => name === 'Dockerfile' || name.endsWith('.Dockerfile'));
const read = (name: string) => readFileSync(join(DOCKER_DIR, name), 'utf8');
const ignore = new DockerIgnore(readFileSync(join(ROOT, '.dockerignore'), 'utf8'));

function finalStage(name: string): { stages: Stage[]; final: Stage } {
  const stages = stagesOf(parseDockerfile(read(name)));
  return { stages, final: stages[stages.length - 1] };
}
const of = (stage: Stage, keyword: Instruction['keyword']) => stage.instructions.filter((i) => i.keyword === keyword);

/** Files under a context-relative path (a file or a directory). */
function filesUnder(path: string): string[] {
  const absolute = join(ROOT, path);
  if (!existsSync(absolute)) return [];
  if (!statSync(absolute).isDirectory()) return [path];
  return readdirSync(absolute, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

describe('the Dockerfile reader', () => {
  it('joins continuation lines, skips comments inside them and reads flags and the JSON form', () => {
    const instructions = parseDockerfile(
      ['FROM node:22-bookworm-slim AS build', 'RUN echo a \\', '  # a comment', '  && echo b', 'COPY --from=build /a /b ./', 'ENTRYPOINT ["node", "main.js"]'].join('\n'),
    );
    expect(instructions.map((i) => i.keyword)).toEqual(['FROM', 'RUN', 'COPY', 'ENTRYPOINT']);
    expect(instructions[1].args).toBe('echo a && echo b');
    expect(instructions[2].flags).toEqual({ from: 'build' });
    expect(copySources(instructions[2])).toEqual(['/a', '/b']);
    expect(instructions[3].json).toEqual(['node', 'main.js']);
  });

  it('refuses unknown instructions, a dangling continuation and a file that does not start with FROM', () => {
    expect(() => parseDockerfile('FROM node:22\nRUNN echo')).toThrow(DockerfileSyntaxError);
    expect(() => parseDockerfile('FROM node:22\nRUN echo \\')).toThrow(/continued/);
    expect(() => parseDockerfile('RUN echo')).toThrow(/FROM/);
  });

  it('matches .dockerignore patterns the way Docker does', () => {
    const sample = new DockerIgnore('**/*.spec.ts\n.env.*\n/dist/\n**/e2e\n');
    expect(sample.excludes('libs/a/src/b.spec.ts')).toBe(true);
    expect(sample.excludes('b.spec.ts')).toBe(true);
    expect(sample.excludes('.env.local')).toBe(true);
    expect(sample.excludes('apps/x/.env.local')).toBe(false);
    expect(sample.excludes('dist/apps/gateway/main.js')).toBe(true);
    expect(sample.excludes('apps/gateway/e2e/health.e2e-spec.ts')).toBe(true);
    expect(sample.excludes('libs/a/src/b.ts')).toBe(false);
  });
});

describe('deploy/docker', () => {
  it('holds at least one Dockerfile, and every one parses into stages', () => {
    expect(dockerfiles.length).toBeGreaterThan(0);
    for (const name of dockerfiles) expect(stagesOf(parseDockerfile(read(name))).length).toBeGreaterThanOrEqual(2);
  });

  it.each(dockerfiles)('%s: every FROM is an earlier stage or an image pinned to a named tag (not latest)', (name) => {
    const { stages } = finalStage(name);
    const names = new Set<string>();
    for (const stage of stages) {
      if (!names.has(stage.base)) {
        const match = /^(?:[\w.-]+(?::\d+)?\/)?[\w./-]+:([\w][\w.-]{0,127})(?:@sha256:[a-f0-9]{64})?$/.exec(stage.base);
        expect({ image: stage.base, pinned: Boolean(match) && match?.[1] !== 'latest' }).toEqual({ image: stage.base, pinned: true });
      }
      if (stage.name) names.add(stage.name);
    }
  });

  it.each(dockerfiles)('%s: the final stage runs as a numeric non-root user, in production mode, with node in exec form', (name) => {
    const { final } = finalStage(name);
    const users = of(final, 'USER');
    expect(users.length).toBeGreaterThan(0);
    const user = users[users.length - 1].rest.trim();
    expect(user).toMatch(/^\d+(:\d+)?$/);
    expect(Number(user.split(':')[0])).toBeGreaterThan(0);
    expect(of(final, 'ENV').flatMap(declaredNames)).toContain('NODE_ENV');
    expect(of(final, 'ENV').some((i) => /\bNODE_ENV=production\b/.test(i.rest))).toBe(true);
    const entrypoint = of(final, 'ENTRYPOINT').pop();
    expect(entrypoint?.json).not.toBeNull();
    // node runs main.js directly or under an init (tini) that forwards signals; never through a shell.
    expect(entrypoint?.json?.slice(-2)).toEqual(['node', 'main.js']);
    expect(entrypoint?.json?.some((part) => /^(sh|bash|\/bin\/sh|\/bin\/bash|npm)$/.test(part))).toBe(false);
    expect(of(final, 'EXPOSE').length).toBe(1);
  });

  it.each(dockerfiles)('%s: the NODE_OPTIONS of the final stage bound the young generation and are accepted by node', (name) => {
    const { final } = finalStage(name);
    const options = of(final, 'ENV')
      .map((instruction) => /\bNODE_OPTIONS="([^"]*)"/.exec(instruction.rest)?.[1])
      .filter((value): value is string => value !== undefined);
    expect(options).toEqual([expect.stringMatching(/(^| )--max-semi-space-size=\d+( |$)/)]);
    // node refuses to start when NODE_OPTIONS holds an option it does not allow there: every service would fail.
    const run = spawnSync(process.execPath, ['-e', 'process.stdout.write("ok")'], { env: { ...process.env, NODE_OPTIONS: options[0] }, encoding: 'utf8' });
    expect({ status: run.status, stdout: run.stdout, stderr: run.stderr }).toEqual({ status: 0, stdout: 'ok', stderr: '' });
  });

  it.each(dockerfiles)("%s: the final stage fixes glibc malloc's mmap and trim thresholds on a glibc base", (name) => {
    const { final } = finalStage(name);
    const env = of(final, 'ENV').map((instruction) => instruction.rest).join(' ');
    for (const variable of ['MALLOC_MMAP_THRESHOLD_', 'MALLOC_TRIM_THRESHOLD_']) {
      expect({ variable, value: new RegExp(`\\b${variable}=(\\d+)\\b`).exec(env)?.[1] }).toEqual({ variable, value: '131072' });
    }
    // The variables are glibc's: an Alpine (musl) base would ignore them.
    expect(final.base).not.toMatch(/alpine/);
  });

  it.each(dockerfiles)('%s: the final stage copies only build output from the build stage', (name) => {
    const { stages, final } = finalStage(name);
    const earlier = new Set(stages.slice(0, -1).flatMap((stage) => [stage.name, String(stage.index)]));
    expect(of(final, 'ADD')).toEqual([]);
    const copies = of(final, 'COPY');
    expect(copies.length).toBeGreaterThan(0);
    for (const copy of copies) {
      expect({ line: copy.line, from: earlier.has(copy.flags.from) }).toEqual({ line: copy.line, from: true });
      for (const source of copySources(copy)) expect(source).toMatch(/(^|\/)dist\/apps\/\$\{?APP\}?\//);
    }
  });

  it.each(dockerfiles)('%s: installs production dependencies only in the final stage, from the generated lock', (name) => {
    const { stages, final } = finalStage(name);
    const build = stages[stages.length - 2];
    expect(of(build, 'RUN').some((i) => /\bnpm ci\b/.test(i.rest))).toBe(true);
    expect(of(build, 'RUN').some((i) => /\bnx build "?\$\{?APP\}?"?/.test(i.rest))).toBe(true);
    const installs = of(final, 'RUN').filter((i) => /\bnpm (ci|install)\b/.test(i.rest));
    expect(installs.length).toBe(1);
    expect(installs[0].rest).toMatch(/--omit=dev/);
    const lockCopy = of(final, 'COPY').findIndex((copy) => copySources(copy).some((source) => source.endsWith('package-lock.json')));
    expect(lockCopy).toBeGreaterThanOrEqual(0);
    expect(of(final, 'COPY')[lockCopy].line).toBeLessThan(installs[0].line);
  });

  it.each(dockerfiles)('%s: runs on the current Node LTS (24) and builds with the same Node major', (name) => {
    const { stages, final } = finalStage(name);
    const major = (image: string) => /^(?:docker\.io\/)?(?:library\/)?node:(\d+)(?:[.-]|$)/.exec(image)?.[1];
    expect(final.base).toMatch(/^node:24-bookworm-slim$/);
    const build = stages[stages.length - 2];
    expect(major(build.base)).toBe(major(final.base));
  });

  it.each(dockerfiles)('%s: has no HEALTHCHECK (Kubernetes probes check health)', (name) => {
    expect(parseDockerfile(read(name)).filter((i) => i.keyword === 'HEALTHCHECK')).toEqual([]);
  });

  it.each(dockerfiles)('%s: every ${VAR} a stage uses is declared in that stage (ARG scope ends at FROM)', (name) => {
    for (const stage of finalStage(name).stages) {
      const declared = new Set<string>();
      for (const instruction of stage.instructions) {
        const undeclared = variableReferences(instruction.args).filter((v) => !declared.has(v) && instruction.keyword !== 'RUN');
        const undeclaredInRun = instruction.keyword === 'RUN' ? [...instruction.args.matchAll(/\$\{([A-Z_][A-Z0-9_]*)\}/g)].map((m) => m[1]).filter((v) => !declared.has(v)) : [];
        expect({ line: instruction.line, undeclared: [...undeclared, ...undeclaredInRun] }).toEqual({ line: instruction.line, undeclared: [] });
        for (const declaredName of declaredNames(instruction)) declared.add(declaredName);
      }
    }
  });

  it('build-images.sh builds each of the five apps with the default port of its port variable', () => {
    const script = read('build-images.sh');
    const pairs = [...script.matchAll(/^\s+([a-z-]+):(\d+)$/gm)].map((m) => [m[1], Number(m[2])]);
    const defaults = configSchema.parse({});
    const expected = SERVICES.map(({ app }) => [app, defaults[DEFINITIONS[app].surfaces[0].port]]);
    expect(pairs.sort()).toEqual(expected.sort());
    expect(script).toMatch(/-f deploy\/docker\/Dockerfile --build-arg "APP=\$\{app\}" --build-arg "PORT=\$\{port\}"/);
  });
});

describe('.dockerignore', () => {
  it('keeps secrets, local data, tests, dependencies, build output and repository metadata out of the context', () => {
    const out = [
      '.env', '.env.production', 'apps/gateway/.env', 'apps/gateway/.env.local', 'server.pem', 'certs/tls.key',
      '.data/instance-secrets.json', 'apps/standalone/.data/store.json',
      'libs/platform/src/config/config.schema.spec.ts', 'apps/gateway/e2e/health.e2e-spec.ts', 'apps/org-api/e2e/org-api.helpers.ts',
      'node_modules/fastify/package.json', 'libs/x/node_modules/y/index.js', 'dist/apps/gateway/main.js', 'tmp/jest-results.json',
      '.git/HEAD', '.nx/workspace-data/project-graph.json',
    ];
    expect(out.filter((path) => !ignore.excludes(path))).toEqual([]);
  });

  it('keeps in every file the build stage copies (sources, workspace configuration, the webpack setup)', () => {
    const { stages } = finalStage('Dockerfile');
    const build = stages[stages.length - 2];
    const sources = of(build, 'COPY').filter((copy) => !copy.flags.from).flatMap(copySources);
    expect(sources).toEqual(expect.arrayContaining(['package.json', 'package-lock.json', '.npmrc', 'libs', 'apps']));
    for (const source of sources) {
      // Source and configuration files; tests, local data and dependencies are meant to stay out.
      const files = filesUnder(source).filter(
        (file) => /\.(ts|js|json)$|^\.npmrc$/.test(file) && !/\.(spec|e2e-spec)\.ts$/.test(file) && !/(^|\/)(e2e|\.data|node_modules)\//.test(file),
      );
      expect({ source, present: files.length > 0 }).toEqual({ source, present: true });
      expect({ source, ignored: files.filter((file) => ignore.excludes(file)) }).toEqual({ source, ignored: [] });
    }
  });
});
