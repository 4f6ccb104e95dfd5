import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { WORKSPACE_ROOT } from './process';

const SOURCE_DIRS = ['apps', 'libs', 'tools', 'deploy'];
const SKIPPED_DIRS = new Set(['node_modules', 'dist', '.data', 'tmp']);
const SOURCE_FILE = /\.(ts|mts|cts|js|mjs|cjs)$/;
/** The specifier of a bare package after `from`, `import`, `import(` or `require(`. */
const IMPORTED = /(?:\bfrom\s+|\bimport\s*\(\s*|\brequire\s*\(\s*|\bimport\s+)['"]([^'"./$][^'"]*)['"]/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(join(WORKSPACE_ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    if (SKIPPED_DIRS.has(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return SOURCE_FILE.test(entry.name) ? [path] : [];
  });
}

/** The package a specifier names: `@scope/name` or `name`, without a subpath. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/**
 * Every package the workspace's code imports is declared in the root package.json. One that is only
 * there as another package's dependency works until that one changes, and Nx writes an undeclared
 * package imported by a library into the `dependencies` of the apps' generated package.json (with
 * everything it pulls in: `@nx/devkit` brought nx, TypeScript and SWC into production installs).
 */
describe('declared dependencies', () => {
  it('every imported package is in dependencies or devDependencies', () => {
    const manifest = JSON.parse(readFileSync(join(WORKSPACE_ROOT, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
    const declared = new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.devDependencies ?? {})]);
    const tsconfig = JSON.parse(readFileSync(join(WORKSPACE_ROOT, 'tsconfig.base.json'), 'utf8')) as { compilerOptions: { paths?: Record<string, string[]> } };
    const aliases = Object.keys(tsconfig.compilerOptions.paths ?? {}).map((alias) => alias.replace(/\/\*$/, ''));
    const builtins = new Set(builtinModules);

    const undeclared = new Map<string, string>();
    const files = [...SOURCE_DIRS.flatMap(sourceFiles), 'jest.config.js', 'eslint.config.mjs'];
    for (const file of files) {
      for (const match of readFileSync(join(WORKSPACE_ROOT, file), 'utf8').matchAll(IMPORTED)) {
        const specifier = match[1];
        const name = packageOf(specifier);
        if (specifier.startsWith('node:') || builtins.has(name) || aliases.some((alias) => specifier === alias || specifier.startsWith(`${alias}/`))) continue;
        if (!declared.has(name) && !undeclared.has(name)) undeclared.set(name, file);
      }
    }
    expect(Object.fromEntries(undeclared)).toEqual({});
    // The scan reads the workspace: it found the imports it is meant to check.
    expect(files.length).toBeGreaterThan(500);
    expect(declared.has('@nx/devkit')).toBe(true);
  });
});
