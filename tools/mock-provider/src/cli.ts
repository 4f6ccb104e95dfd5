/**
 * Starts the mock provider as its own process (how the benchmark runs it):
 *
 *   SWC_NODE_PROJECT=tsconfig.base.json node -r @swc-node/register tools/mock-provider/src/cli.ts --port 9100
 *
 * Options: --port <n> (default 9100, 0 = free port), --host <addr> (default 127.0.0.1),
 * --no-record (benchmarks), --max-records <n>, --latency-ms <n>, --no-auth.
 * Prints `mock-provider listening on <url>` once it accepts connections; stops on SIGINT / SIGTERM.
 */
import { startMockProvider } from './server';
import type { MockProviderOptions } from './types';

function parseArgs(argv: string[]): { options: MockProviderOptions; latencyMs?: number } {
  const options: MockProviderOptions = { port: 9100 };
  let latencyMs: number | undefined;
  const number = (flag: string, value: string | undefined): number => {
    const n = Number(value);
    if (value === undefined || !Number.isInteger(n) || n < 0) throw new Error(`${flag} needs a non-negative integer`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split('=', 2);
    const value = (): string | undefined => inline ?? argv[++i];
    switch (flag) {
      case '--port':
        options.port = number(flag, value());
        break;
      case '--host':
        options.host = value();
        break;
      case '--no-record':
        options.record = false;
        break;
      case '--max-records':
        options.maxRecords = number(flag, value());
        break;
      case '--latency-ms':
        latencyMs = number(flag, value());
        break;
      case '--no-auth':
        options.requireAuth = false;
        break;
      default:
        throw new Error(`unknown option ${argv[i]}`);
    }
  }
  return { options, latencyMs };
}

async function main(): Promise<void> {
  const { options, latencyMs } = parseArgs(process.argv.slice(2));
  const mock = await startMockProvider(options);
  if (latencyMs) mock.setBehavior({ latencyMs });
  console.log(`mock-provider listening on ${mock.url}`);
  const stop = (): void => {
    mock.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: unknown) => {
  console.error(`mock-provider: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
