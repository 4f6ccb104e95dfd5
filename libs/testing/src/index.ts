export * from './boot';
export * from './process';
/** Seeded usage per cost-anomaly rule (like RecordingPublisher in @svc/events). */
export * as anomalyScenarios from './anomaly-usage';
