export * from './boot';
export * from './process';
