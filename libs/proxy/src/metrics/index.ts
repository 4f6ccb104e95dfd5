export * from './gateway-metrics';
