import type { INestApplication } from '@nestjs/common';
import type { Logger } from 'pino';

export interface Closeable {
  close(): Promise<unknown> | unknown;
}

/**
 * Closes a Nest HTTP app the way a rolling deploy needs: the listener stops at once, in-flight
 * requests finish, and keep-alive connections are closed as soon as they fall idle (Node only
 * closes the ones idle at the moment close starts, so a connection that finishes a request later
 * would otherwise hold the server open).
 */
export async function closeGracefully(app: INestApplication): Promise<void> {
  const server = app.getHttpServer() as { closeIdleConnections?: () => void };
  const sweep = setInterval(() => server.closeIdleConnections?.(), 25);
  try {
    await app.close();
  } finally {
    clearInterval(sweep);
  }
}

/**
 * Drains on SIGTERM/SIGINT: the HTTP servers stop taking requests and finish in-flight ones
 * (Nest runs every module's destroy hooks, which close workers and queues), then the shared
 * resources close. A second signal, or `timeoutMs`, forces the exit.
 */
export function handleShutdown(
  apps: INestApplication[],
  resources: Closeable[],
  logger: Logger,
  timeoutMs: number,
): () => Promise<void> {
  let closing: Promise<void> | null = null;
  const shutdown = (signal: string): Promise<void> => {
    if (closing) return closing;
    logger.info({ signal }, 'shutting down: draining in-flight requests');
    const timer = setTimeout(() => {
      logger.error({ timeout_ms: timeoutMs }, 'shutdown timed out; exiting');
      process.exit(1);
    }, timeoutMs);
    timer.unref();
    closing = (async () => {
      await Promise.allSettled(apps.map((app) => closeGracefully(app)));
      for (const resource of resources) {
        await Promise.resolve(resource.close()).catch((err: unknown) => logger.warn({ err }, 'close failed'));
      }
      clearTimeout(timer);
      logger.info('shutdown complete');
    })();
    return closing;
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (closing) process.exit(1);
    void shutdown(signal).then(() => process.exit(0));
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return () => shutdown('manual');
}
