export * from './nest-timestamp-formatters';
