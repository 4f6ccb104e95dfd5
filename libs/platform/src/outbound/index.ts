export * from './outbound-address';
export * from './host-resolver';
export * from './outbound-resolver';
export * from './outbound-url';
export * from './outbound-agent';
export * from './undici-parts';
