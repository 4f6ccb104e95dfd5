export * from './telemetry';
export * from './telemetry.config';
export * from './redact-url';
export { UNTRACED_PATHS } from './instrumentations';
