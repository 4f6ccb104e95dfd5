/**
 * Shared webpack setup of every app: our TypeScript is bundled into one main.js per app,
 * node_modules stay external (installed from package.json in the image), and the build writes a
 * package.json listing just the dependencies the app uses.
 */
const { NxAppWebpackPlugin } = require('@nx/webpack/app-plugin');
const TerserPlugin = require('terser-webpack-plugin');
const { join } = require('node:path');

/**
 * Prints the bundle without comments and in ASCII, changing no code (no compression, no renaming:
 * class and function names stay, for Nest, OpenAPI schema names and stack traces) and keeping it
 * indented, one statement per line, so a stack trace's line in main.js still reads. V8 keeps every
 * loaded script's source in the heap for lazy compilation: the gateway's bundle took 1.7 MB there
 * (its comments held a few non-Latin-1 characters, which make the whole source two bytes per
 * character), ~0.7 MB printed so. Nx's own optimisation (`optimization: true`) would also rename and
 * tree-shake; it stays off, and this plugin, applied after Nx's, turns minimising back on.
 */
class PrintWithoutCommentsPlugin {
  apply(compiler) {
    compiler.options.optimization.minimize = true;
    compiler.options.optimization.minimizer = [
      new TerserPlugin({
        extractComments: false,
        terserOptions: { compress: false, mangle: false, keep_classnames: true, keep_fnames: true, format: { ascii_only: true, comments: false, beautify: true, indent_level: 2 } },
      }),
    ];
  }
}

/**
 * `tools`: operator commands of the app, each `apps/<app>/src/<tool>.ts` bundled beside main.js as
 * `<tool>.js` (e.g. org-api's `reset-password.js`), so the app's image can run them.
 */
module.exports = function appWebpackConfig(appName, { tools = [] } = {}) {
  const root = join(__dirname, '..', '..');
  return {
    output: { path: join(root, 'dist', 'apps', appName), clean: true },
    devtool: 'source-map',
    plugins: [
      new NxAppWebpackPlugin({
        target: 'node',
        outputPath: join(root, 'dist', 'apps', appName),
        compiler: 'tsc',
        main: `./src/main.ts`,
        additionalEntryPoints: tools.map((tool) => ({ entryName: tool, entryPath: join('apps', appName, 'src', `${tool}.ts`) })),
        // Absolute: Nx's package.json generator reads importHelpers from it while webpack runs in the
        // app's directory; a relative path there silently drops `tslib` from the generated manifest.
        tsConfig: join(root, 'apps', appName, 'tsconfig.app.json'),
        optimization: false,
        outputHashing: 'none',
        generatePackageJson: true,
        skipTypeChecking: true,
        sourceMap: true,
      }),
      new PrintWithoutCommentsPlugin(),
    ],
  };
};
