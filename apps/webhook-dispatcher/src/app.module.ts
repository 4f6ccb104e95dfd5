import { Module } from '@nestjs/common';
import { BudgetAlertsModule } from '@svc/org';
import { maskPii } from '@svc/governance';
import { LivenessModule, SERVICE_VERSION } from '@svc/platform';
import { WebhookDispatcherModule } from '@svc/webhooks';
import type { ServiceDefinition } from '@svc/runtime';

@Module({ imports: [LivenessModule, WebhookDispatcherModule, BudgetAlertsModule] })
export class AppModule {}

export const SERVICE: ServiceDefinition = {
  name: 'webhook-dispatcher',
  version: SERVICE_VERSION,
  // LOG_BODIES: logged bodies carry no personal data (docs/deploy-operating.md "Logs and secrets").
  maskLoggedText: maskPii,
  surfaces: [
    {
      label: 'webhook-dispatcher',
      module: AppModule,
      port: 'WEBHOOK_DISPATCHER_PORT',
      surface: 'gateway',
    },
  ],
};
