export * from './gateway-admin.module';
