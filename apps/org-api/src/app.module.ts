import { Module } from '@nestjs/common';
import { maskPii } from '@svc/governance';
import { LivenessModule, SERVICE_VERSION } from '@svc/platform';
import { OrgApiModule } from '@svc/org';
import type { ServiceDefinition } from '@svc/runtime';

@Module({ imports: [LivenessModule, OrgApiModule] })
export class AppModule {}

export const SERVICE: ServiceDefinition = {
  name: 'org-api',
  bootstrap: true,
  version: SERVICE_VERSION,
  // LOG_BODIES: logged bodies carry no personal data (docs/deploy-operating.md "Logs and secrets").
  maskLoggedText: maskPii,
  surfaces: [
    {
      label: 'org-api',
      module: AppModule,
      port: 'ORG_API_PORT',
      surface: 'org',
      docs: { title: 'Organization API', description: 'Login, API keys, webhooks, budgets, cost metrics and agent health under /api/v1' },
    },
  ],
};
