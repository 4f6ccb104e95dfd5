import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@svc/platform';
import { RunningService, ServiceDefinition, StartOptions, startService } from '@svc/runtime';

export interface TestService extends RunningService {
  dataDir: string;
  /** Closes the service and removes its data directory (unless the caller gave it in `env`). */
  stop(): Promise<void>;
}

/**
 * Boots a service definition in process on free ports with a private DATA_DIR, silent logs, no
 * banner and no signal handlers. `env` overrides or adds environment variables (e.g. REDIS_URL);
 * `options.logDestination` receives the log lines (with a LOG_LEVEL in `env` that writes some);
 * `options.documentStore`, another service's open store, makes this one a replica sharing its
 * documents (as replicas share MongoDB), with Redis clients, caches and workers of its own.
 */
export async function bootService(
  definition: ServiceDefinition,
  env: Record<string, string> = {},
  options: Pick<StartOptions, 'logDestination' | 'documentStore'> = {},
): Promise<TestService> {
  // A DATA_DIR given in `env` is the caller's: kept on stop, to start a service on it again.
  const ownDataDir = env.DATA_DIR === undefined;
  const dataDir = env.DATA_DIR ?? mkdtempSync(join(tmpdir(), 'svc-test-'));
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    GATEWAY_PORT: '0',
    ORG_API_PORT: '0',
    GATEWAY_ADMIN_PORT: '0',
    RUNNER_CONTROL_PLANE_PORT: '0',
    WEBHOOK_DISPATCHER_PORT: '0',
    ...env,
  });
  const running = await startService(definition, config, { ...options, handleSignals: false, banner: false });
  return {
    ...running,
    dataDir,
    stop: async () => {
      await running.close();
      if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
