export * from './runtime';
export * from './run-service';
export * from './instance-secrets';
