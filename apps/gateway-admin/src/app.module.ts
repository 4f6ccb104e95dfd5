import { Module } from '@nestjs/common';
import { maskPii } from '@svc/governance';
import { LivenessModule, SERVICE_VERSION } from '@svc/platform';
import { GatewayAdminModule } from '@svc/admin';
import { unservedAdminRoute } from '@svc/proxy';
import type { ServiceDefinition } from '@svc/runtime';

@Module({ imports: [LivenessModule, GatewayAdminModule] })
export class AppModule {}

export const SERVICE: ServiceDefinition = {
  name: 'gateway-admin',
  version: SERVICE_VERSION,
  // LOG_BODIES: logged bodies carry no personal data (docs/deploy-operating.md "Logs and secrets").
  maskLoggedText: maskPii,
  surfaces: [
    {
      label: 'gateway-admin',
      module: AppModule,
      port: 'GATEWAY_ADMIN_PORT',
      surface: 'gateway',
      // `/v1/admin` paths no route serves: the gateway's own 404 (`npm start` answers them in its proxy).
      notFound: unservedAdminRoute,
      docs: { title: 'Gateway admin', description: 'Policies, secrets, usage, billing, approvals, targets, aliases and budgets under /gateway/admin; API keys and webhooks under /v1/admin' },
    },
  ],
};
