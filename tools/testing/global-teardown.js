module.exports = async function globalTeardown() {
  const child = globalThis.__TEST_REDIS__;
  if (child && child.exitCode === null) {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
};
