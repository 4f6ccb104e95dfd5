import { Module } from '@nestjs/common';
import { BudgetAlertsModule } from '@svc/org';
import { LivenessModule, SERVICE_VERSION } from '@svc/platform';
import { WebhookDispatcherModule } from '@svc/webhooks';
import type { ServiceDefinition } from '@svc/runtime';

@Module({ imports: [LivenessModule, WebhookDispatcherModule, BudgetAlertsModule] })
export class AppModule {}

export const SERVICE: ServiceDefinition = {
  name: 'webhook-dispatcher',
  version: SERVICE_VERSION,
  surfaces: [
    {
      label: 'webhook-dispatcher',
      module: AppModule,
      port: 'WEBHOOK_DISPATCHER_PORT',
      surface: 'gateway',
    },
  ],
};
