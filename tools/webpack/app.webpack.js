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
        tsConfig: './tsconfig.app.json',
        optimization: false,
        outputHashing: 'none',
        generatePackageJson: true,
        skipTypeChecking: true,
        sourceMap: true,
      }),
    ],
  };
};
