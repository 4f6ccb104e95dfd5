/**
 * Shared webpack setup of every app: our TypeScript is bundled into one main.js per app,
 * node_modules stay external (installed from package.json in the image), and the build writes a
 * package.json listing just the dependencies the app uses.
 */
const { NxAppWebpackPlugin } = require('@nx/webpack/app-plugin');
const { join } = require('node:path');

module.exports = function appWebpackConfig(appName) {
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
        // Absolute: Nx's package.json generator reads importHelpers from it while webpack runs in the
        // app's directory; a relative path there silently drops `tslib` from the generated manifest.
        tsConfig: join(root, 'apps', appName, 'tsconfig.app.json'),
        optimization: false,
        outputHashing: 'none',
        generatePackageJson: true,
        skipTypeChecking: true,
        sourceMap: true,
      }),
    ],
  };
};
