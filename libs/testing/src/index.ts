export * from './boot';
export * from './process';
export * from './redis-process';
/** Seeded usage per cost-anomaly rule (like RecordingPublisher in @svc/events). */
export * as anomalyScenarios from './anomaly-usage';
