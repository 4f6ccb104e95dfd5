export * from './redis-process';
