export * from './redis-process';
export * from './fake-name-server';
