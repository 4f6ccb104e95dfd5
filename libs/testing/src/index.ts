export * from './boot';
export * from './clock';
export * from './process';
export { RedisProcess, startRedisProcess } from '@svc/test-redis';
/** Seeded usage per cost-anomaly rule (like RecordingPublisher in @svc/events). */
export * as anomalyScenarios from './anomaly-usage';
export * from './openapi';
export * from './admin-routes';
export * from './webhook-receiver';
export * from './redis-db';
