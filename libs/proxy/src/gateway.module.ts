import { Module } from '@nestjs/common';
import { AuthModule } from '@svc/auth';
import { APP_CONFIG, AppConfig } from '@svc/platform';
import { GovernanceModule } from '@svc/governance';
import { BreakerRegistry } from './breaker/breaker-registry';
import { providerRegistry } from './providers';
import { GatewayHealthController } from './http/health.controller';
import { ModelsController } from './http/models.controller';
import { ProxyController } from './http/proxy.controller';
import { ProxyRoutes } from './http/proxy.routes';
import { GatewayMetrics } from './metrics/gateway-metrics';
import { IdempotencyGate } from './pipeline/idempotency';
import { ModelAliasResolver } from './pipeline/model-aliases';
import { OrgProviderRegistry } from './pipeline/org-registry';
import { ProviderKeySources } from './pipeline/provider-keys';
import { ProxyService } from './pipeline/proxy.service';
import { UsageRecorder } from './pipeline/usage-recorder';

/** The gateway proxy: `/v1` routes, health, metrics. Governance runs inside it. */
@Module({
  imports: [AuthModule, GovernanceModule],
  controllers: [GatewayHealthController, ModelsController, ProxyController],
  providers: [
    GatewayMetrics,
    {
      provide: BreakerRegistry,
      inject: [GatewayMetrics, APP_CONFIG],
      useFactory: (metrics: GatewayMetrics, config: AppConfig) =>
        new BreakerRegistry(
          {
            failureThreshold: config.CIRCUIT_BREAKER_FAILURE_THRESHOLD,
            failureWindowMs: config.CIRCUIT_BREAKER_WINDOW_SECONDS * 1000,
            recoveryTimeoutMs: config.CIRCUIT_BREAKER_RECOVERY_SECONDS * 1000,
          },
          (provider, state) => metrics.observeBreakerChange(provider, state),
          providerRegistry.list().map((provider) => provider.id),
        ),
    },
    IdempotencyGate,
    ModelAliasResolver,
    OrgProviderRegistry,
    ProviderKeySources,
    UsageRecorder,
    ProxyService,
    ProxyRoutes,
  ],
  exports: [ProxyService, UsageRecorder, GatewayMetrics, BreakerRegistry],
})
export class GatewayProxyModule {}
