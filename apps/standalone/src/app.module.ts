import { Module } from '@nestjs/common';
import { GatewayProxyModule } from '@svc/proxy';
import { GatewayAdminModule } from '@svc/admin';
import { BudgetAlertsModule, OrgApiModule } from '@svc/org';
import { maskPii } from '@svc/governance';
import { LivenessModule, SERVICE_VERSION } from '@svc/platform';
import type { ServiceDefinition } from '@svc/runtime';
import { RunnerControlPlaneModule } from '@svc/runners';
import { WebhookDispatcherModule } from '@svc/webhooks';

/** `{base_url}`: the proxy, the gateway admin (runners included) and the in-process workers (webhooks, anomalies, budget alerts). */
@Module({ imports: [LivenessModule, GatewayProxyModule, GatewayAdminModule, RunnerControlPlaneModule, WebhookDispatcherModule, BudgetAlertsModule] })
export class GatewaySurfaceModule {}

/** `{admin_url}`: the organization API. */
@Module({ imports: [LivenessModule, OrgApiModule] })
export class OrgSurfaceModule {}

/** `npm start`: the whole service in one process (DECISIONS.md "Running it"). */
export const SERVICE: ServiceDefinition = {
  name: 'svc-gateway',
  bootstrap: true,
  version: SERVICE_VERSION,
  // LOG_BODIES: logged bodies carry no personal data (docs/deploy-operating.md "Logs and secrets").
  maskLoggedText: maskPii,
  surfaces: [
    {
      label: 'gateway',
      module: GatewaySurfaceModule,
      port: 'GATEWAY_PORT',
      surface: 'gateway',
      rawBodyPrefix: '/v1/',
      // The gateway admin's /v1/admin/api-keys and /v1/admin/webhooks take JSON bodies like its other routes.
      parsedBodyPrefixes: ['/v1/admin/'],
      docs: { title: 'Governed LLM gateway', description: 'Proxy routes under /v1 and the admin surface under /gateway/admin and /v1/admin' },
      highlights: [
        ['/v1', 'proxy: the SDKs\' baseURL (POST /v1/chat/completions, /v1/messages; GET /v1/models)'],
        ['/gateway/admin', 'admin API (/gateway/admin/policies, /keys, /usage, ...)'],
        ['/v1/admin', 'admin API: /v1/admin/api-keys, /v1/admin/webhooks'],
      ],
    },
    {
      label: 'org-api',
      module: OrgSurfaceModule,
      port: 'ORG_API_PORT',
      surface: 'org',
      docs: { title: 'Organization API', description: 'Login, API keys, webhooks, budgets, cost metrics under /api/v1' },
      highlights: [['/api/v1', 'organization API (POST /api/v1/auth/login, /api/v1/platform/api-keys, ...)']],
    },
  ],
};
