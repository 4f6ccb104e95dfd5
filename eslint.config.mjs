import nx from '@nx/eslint-plugin';

/**
 * Module boundaries. Layers: apps compose features; features use data and utilities; data uses
 * utilities. `type:test` libraries (test helpers, the mock provider) serve specs, e2e suites and
 * tools only: no production layer may depend on them, so only the test-file override below allows it.
 */
const LAYERS = {
  'type:app': ['type:feature', 'type:data', 'type:util'],
  'type:feature': ['type:feature', 'type:data', 'type:util'],
  'type:data': ['type:data', 'type:util'],
  'type:util': ['type:util'],
  'type:test': ['type:test', 'type:feature', 'type:data', 'type:util'],
};

function boundaries({ testFiles }) {
  return [
    'error',
    {
      enforceBuildableLibDependency: true,
      banTransitiveDependencies: false,
      allow: [],
      depConstraints: [
        ...Object.entries(LAYERS).map(([sourceTag, tags]) => ({
          sourceTag,
          onlyDependOnLibsWithTags: testFiles && !tags.includes('type:test') ? [...tags, 'type:test'] : tags,
        })),
        // Scopes: a service's code reaches only its own scope and the shared one.
        { sourceTag: 'scope:gateway', onlyDependOnLibsWithTags: ['scope:gateway', 'scope:shared'] },
        { sourceTag: 'scope:org', onlyDependOnLibsWithTags: ['scope:org', 'scope:shared'] },
        { sourceTag: 'scope:runner', onlyDependOnLibsWithTags: ['scope:runner', 'scope:shared'] },
        { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
        // Only the one-process composition (`npm start`) may combine every service's features.
        { sourceTag: 'scope:all', onlyDependOnLibsWithTags: ['scope:gateway', 'scope:org', 'scope:runner', 'scope:shared'] },
      ],
    },
  ];
}

/** Specs, e2e suites and their helpers: the only files that may import `type:test` libraries. */
export const TEST_FILES = ['**/*.spec.ts', '**/*.e2e-spec.ts', 'apps/*/e2e/**/*.ts'];

export default [
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  ...nx.configs['flat/javascript'],
  {
    ignores: ['**/dist', '**/node_modules', '**/.nx', '**/.data', 'tmp', 'coverage'],
  },
  {
    files: ['**/*.ts', '**/*.js', '**/*.mjs'],
    rules: {
      '@nx/enforce-module-boundaries': boundaries({ testFiles: false }),
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: TEST_FILES,
    rules: { '@nx/enforce-module-boundaries': boundaries({ testFiles: true }) },
  },
  {
    // Build and tool scripts outside every project (the mock provider is a project: it keeps the rule).
    files: ['**/webpack.config.js', 'tools/webpack/**/*', 'tools/testing/**/*', 'tools/bench/**/*', 'tools/fuzz/**/*', 'tools/*.mjs', 'jest.config.js'],
    rules: { '@nx/enforce-module-boundaries': 'off' },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
];
