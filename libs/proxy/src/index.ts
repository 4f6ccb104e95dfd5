export * from './gateway.module';
export * from './breaker';
export * from './metrics';
export * from './transport';
export * from './providers';
export * from './upstream';
export { BUILTIN_MODEL_ALIASES, ModelAliasResolver } from './pipeline/model-aliases';
export { ProxyService } from './pipeline/proxy.service';
export { UsageRecorder } from './pipeline/usage-recorder';
