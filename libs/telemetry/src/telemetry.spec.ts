import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
const TELEMETRY_MODULES = /[\\/]node_modules[\\/](@opentelemetry|@fastify[\\/]otel)[\\/]/;

/**
 * Starts telemetry the way an app's instrument.ts does, in a fresh process (module loading is
 * per process), and reports what it loaded: the packages under node_modules of OpenTelemetry.
 */
function startInChild(env: Record<string, string>): { started: boolean; packages: string[] } {
  const script = `
    const telemetry = require('./libs/telemetry/src');
    const started = telemetry.startTelemetry('spec');
    const packages = [...new Set(Object.keys(require.cache)
      .filter((file) => ${TELEMETRY_MODULES}.test(file))
      .map((file) => file.split(/[\\\\/]node_modules[\\\\/]/).pop().split(/[\\\\/]/).slice(0, 2).join('/')))].sort();
    process.stdout.write(JSON.stringify({ started, packages }));
    telemetry.stopTelemetry().then(() => process.exit(0));`;
  const output = execFileSync(process.execPath, ['-r', '@swc-node/register', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', SWC_NODE_PROJECT: 'tsconfig.base.json', ...env },
  });
  return JSON.parse(output) as { started: boolean; packages: string[] };
}

describe('startTelemetry', () => {
  it('without OTEL_EXPORTER_OTLP_ENDPOINT loads nothing of OpenTelemetry', () => {
    expect(startInChild({})).toEqual({ started: false, packages: [] });
  });

  it('with an endpoint starts the SDK with the http, fastify, undici, ioredis and mongoose instrumentations', () => {
    // Nothing listens there: starting does not connect, and the SDK is stopped with no spans to send.
    const { started, packages } = startInChild({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });
    expect(started).toBe(true);
    expect(packages).toEqual(
      expect.arrayContaining([
        '@opentelemetry/sdk-node',
        '@opentelemetry/exporter-trace-otlp-http',
        '@opentelemetry/instrumentation-http',
        '@opentelemetry/instrumentation-undici',
        '@opentelemetry/instrumentation-ioredis',
        '@opentelemetry/instrumentation-mongoose',
        '@fastify/otel',
      ]),
    );
  });
});
