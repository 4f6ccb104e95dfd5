import { Module } from '@nestjs/common';
import { LivenessModule, SERVICE_VERSION } from '@svc/platform';
import { GatewayAdminModule } from '@svc/admin';
import type { ServiceDefinition } from '@svc/runtime';

@Module({ imports: [LivenessModule, GatewayAdminModule] })
export class AppModule {}

export const SERVICE: ServiceDefinition = {
  name: 'gateway-admin',
  version: SERVICE_VERSION,
  surfaces: [
    {
      label: 'gateway-admin',
      module: AppModule,
      port: 'GATEWAY_ADMIN_PORT',
      surface: 'gateway',
      docs: { title: 'Gateway admin', description: 'Policies, secrets, usage, billing, approvals, targets, aliases and budgets under /gateway/admin; API keys and webhooks under /v1/admin' },
    },
  ],
};
