export * from './upstream-client';
