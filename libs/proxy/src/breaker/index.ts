export * from './provider-breaker';
export * from './breaker-registry';
