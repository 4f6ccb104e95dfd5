export * from './types';
export * from './catalog';
export * from './registry';
export * from './routing';
export * from './models';
export * from './environment';
