/** Injection token for the validated AppConfig. */
export const APP_CONFIG = Symbol('APP_CONFIG');
/** Injection token for the root pino logger. */
export const LOGGER = Symbol('LOGGER');
/** Injection token for the shared ioredis client (null when REDIS_URL is unset). */
export const REDIS = Symbol('REDIS');
