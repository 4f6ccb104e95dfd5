export * from './telemetry';
export * from './telemetry.config';
