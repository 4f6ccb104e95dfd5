import { createProjectGraphAsync } from '@nx/devkit';
import { execFileSync } from 'node:child_process';
import { WORKSPACE_ROOT } from './process';

interface Fixture {
  path: string;
  source: string;
}

const importing = (lib: string) => `import * as helpers from '${lib}';\nexport const used = helpers;\n`;

/**
 * Lints source text the way `npm run lint` does (the workspace's eslint.config.mjs, through ESLint's
 * Node API, each text named as if it were the file at `path`) and returns the module-boundary
 * messages per fixture. ESLint loads its ES-module config with a dynamic import, which Jest's VM
 * cannot do, so the linting runs in one child process for all fixtures.
 */
function boundaryErrors(fixtures: Fixture[]): string[][] {
  const script = `
    import { ESLint } from 'eslint';
    import { join } from 'node:path';
    const fixtures = JSON.parse(process.argv[1]);
    const eslint = new ESLint({ cwd: process.cwd() });
    const out = [];
    for (const { path, source } of fixtures) {
      const [result] = await eslint.lintText(source, { filePath: join(process.cwd(), path) });
      out.push(result.messages.filter((m) => m.ruleId === '@nx/enforce-module-boundaries').map((m) => m.message));
    }
    process.stdout.write(JSON.stringify(out));`;
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(fixtures)], {
    cwd: WORKSPACE_ROOT,
    encoding: 'utf8',
    env: { ...process.env, NX_DAEMON: 'false' },
  });
  return JSON.parse(output) as string[][];
}

const violations: [string, string, string][] = [
  ['a feature lib', 'libs/proxy/src/lint-fixture.ts', '@svc/testing'],
  ['a feature lib', 'libs/proxy/src/lint-fixture.ts', '@svc/mock-provider'],
  ['another service feature lib', 'libs/org/src/lint-fixture.ts', '@svc/testing'],
  ['an app', 'apps/gateway/src/lint-fixture.ts', '@svc/mock-provider'],
  ['the governance lib', 'libs/governance/src/lint-fixture.ts', '@svc/test-redis'],
];
const allowed: [string, string, string][] = [
  ['a unit spec', 'libs/proxy/src/lint-fixture.spec.ts', '@svc/testing'],
  ['an e2e suite', 'apps/gateway/e2e/lint-fixture.e2e-spec.ts', '@svc/mock-provider'],
  ['an e2e helper', 'apps/gateway/e2e/lint-fixture-helpers.ts', '@svc/testing'],
  ['a governance spec', 'libs/governance/src/lint-fixture.spec.ts', '@svc/test-redis'],
];

describe('module boundaries: test helpers stay out of production code', () => {
  let results: string[][];
  beforeAll(async () => {
    // The rule reads the cached project graph; make sure there is one (a fresh clone has none).
    await createProjectGraphAsync({ exitOnError: false });
    results = boundaryErrors([
      ...[...violations, ...allowed].map(([, path, lib]) => ({ path, source: importing(lib) })),
      { path: 'tools/mock-provider/src/lint-fixture.ts', source: importing('@svc/proxy') },
    ]);
  }, 180_000);

  it.each(violations.map((row, i) => [...row, i] as const))('%s (%s) may not import %s', (_what, _path, _lib, i) => {
    expect(results[i]).toEqual([expect.stringMatching(/can only depend on libs tagged with/)]);
  });

  it.each(allowed.map((row, i) => [...row, violations.length + i] as const))('%s (%s) may import %s', (_what, _path, _lib, i) => {
    expect(results[i]).toEqual([]);
  });

  it('the mock provider keeps the rule: it may not reach into a service scope', () => {
    expect(results[violations.length + allowed.length]).toEqual([expect.stringMatching(/scope:shared/)]);
  });
});
