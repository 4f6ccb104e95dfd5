/**
 * One Jest run for the whole workspace: unit specs beside the code (`*.spec.ts`) and
 * end-to-end specs per app (`apps/<service>/e2e/*.e2e-spec.ts`). TypeScript is compiled by SWC
 * with decorator metadata, so NestJS dependency injection works as in the built apps.
 */
const { compilerOptions } = require('./tsconfig.base.json');

const moduleNameMapper = {};
for (const [alias, [target]] of Object.entries(compilerOptions.paths)) {
  moduleNameMapper[`^${alias.replace('/', '\\/')}$`] = `<rootDir>/${target}`;
}

module.exports = {
  rootDir: __dirname,
  testEnvironment: 'node',
  roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/tools', '<rootDir>/deploy'],
  testMatch: ['**/*.spec.ts', '**/*.e2e-spec.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  moduleNameMapper,
  transform: {
    '^.+\\.(t|j)s$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
          target: 'es2022',
        },
        module: { type: 'commonjs' },
      },
    ],
  },
  globalSetup: '<rootDir>/tools/testing/global-setup.js',
  globalTeardown: '<rootDir>/tools/testing/global-teardown.js',
  testTimeout: 30000,
  maxWorkers: 2,
  // A worker whose heap has grown past this after a test file is replaced, so long-running workers do
  // not drag every later file (and each forced GC of the timing tests) through a bloated heap. At 1GB
  // a clean-clone run took 730 s, at 512MB 333 s (2 cores).
  workerIdleMemoryLimit: '512MB',
  testSequencer: '<rootDir>/tools/testing/sequencer.js',
};
