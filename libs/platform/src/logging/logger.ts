import pino, { Logger } from 'pino';
import type { AppConfig } from '../config/app-config';
import { redactSecrets } from './redact';
import { scrubEmbeddedUrls } from './scrub';

/**
 * The service's pino logger. Every object logged (and every child logger's bindings) goes through
 * `redactSecrets`, so credentials are replaced by `[REDACTED]` whatever their letter case, URL user
 * info and incoming-webhook paths are masked, and what nests deeper than 8 levels is `[TRUNCATED]`.
 * URLs inside the message and inside error messages are masked too (`scrubEmbeddedUrls`).
 */
export function createLogger(
  config: Pick<AppConfig, 'LOG_LEVEL'>,
  name: string,
  destination?: LogDestination,
): Logger {
  const options: pino.LoggerOptions = {
    name,
    level: config.LOG_LEVEL,
    formatters: {
      log: (object) => redactSecrets(object),
      bindings: (bindings) => redactSecrets(bindings),
    },
    hooks: {
      // The message is not part of the object the formatters see: URLs in it are masked here, and
      // an error logged alone (`logger.error(err)`) gets its message, so masked, as the line's.
      logMethod(args, method) {
        const [first, second] = args as unknown[];
        if (first instanceof Error && typeof second !== 'string') {
          return method.apply(this, [{ err: first }, scrubEmbeddedUrls(first.message)] as unknown as Parameters<typeof method>);
        }
        return method.apply(this, args.map((arg) => (typeof arg === 'string' ? scrubEmbeddedUrls(arg) : arg)) as Parameters<typeof method>);
      },
    },
    base: { service: name },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  const logger = destination ? pino(options, destination) : pino(options);
  // pino formats a child's bindings without `formatters.bindings`; children (and theirs, which
  // inherit from this instance) get theirs redacted here instead.
  type Child = (this: Logger, bindings: pino.Bindings, childOptions?: pino.ChildLoggerOptions) => Logger;
  const originalChild = logger.child as unknown as Child;
  const redactedChild: Child = function (this: Logger, bindings, childOptions) {
    return originalChild.call(this, redactSecrets(bindings), childOptions);
  };
  logger.child = redactedChild as unknown as typeof logger.child;
  return logger;
}

/** A stream log lines are written to (stdout when none is given). */
export type LogDestination = pino.DestinationStream;

export type { Logger };
