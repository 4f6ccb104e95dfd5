export * from './org-api.module';
