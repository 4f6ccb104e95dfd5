export * from './webhook-dispatcher.module';
export * from './dispatcher-settings';
export * from './signing/webhook-signature';
export * from './anomaly/anomaly-rules';
export { AnomalyDetector } from './anomaly/anomaly-detector';
export type { AnomalyDetectorOptions } from './anomaly/anomaly-detector';
