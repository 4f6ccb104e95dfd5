import pino, { Logger } from 'pino';
import type { AppConfig } from '../config/app-config';

/**
 * Paths whose values never reach a log line. Headers are matched both as sent by clients
 * and as normalised to lower case by Node.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-svc-api-key"]',
  'req.headers["x-provider-key"]',
  'req.headers["x-api-key"]',
  'req.headers["x-runner-proof"]',
  'req.headers.cookie',
  'headers.authorization',
  'headers["x-svc-api-key"]',
  'headers["x-provider-key"]',
  'headers["x-api-key"]',
  '*.password',
  '*.plaintext_key',
  '*.secret',
  '*.key',
  '*.api_key',
  '*.access_token',
  '*.refresh_token',
  '*.token',
  'password',
  'plaintext_key',
  'secret',
  'api_key',
  'access_token',
  'refresh_token',
  'token',
];

export function createLogger(
  config: Pick<AppConfig, 'LOG_LEVEL'>,
  name: string,
  destination?: pino.DestinationStream,
): Logger {
  const options: pino.LoggerOptions = {
    name,
    level: config.LOG_LEVEL,
    redact: { paths: REDACTED_PATHS, censor: '[REDACTED]' },
    base: { service: name },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return destination ? pino(options, destination) : pino(options);
}

export type { Logger };
