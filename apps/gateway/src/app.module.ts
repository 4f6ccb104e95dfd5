import { Module } from '@nestjs/common';
import { maskPii } from '@svc/governance';
import { LivenessModule, SERVICE_VERSION } from '@svc/platform';
import { GatewayProxyModule } from '@svc/proxy';
import type { ServiceDefinition } from '@svc/runtime';

@Module({ imports: [LivenessModule, GatewayProxyModule] })
export class AppModule {}

export const SERVICE: ServiceDefinition = {
  name: 'gateway',
  version: SERVICE_VERSION,
  // LOG_BODIES: logged bodies carry no personal data (docs/deploy-operating.md "Logs and secrets").
  maskLoggedText: maskPii,
  surfaces: [
    {
      label: 'gateway',
      module: AppModule,
      port: 'GATEWAY_PORT',
      surface: 'gateway',
      rawBodyPrefix: '/v1/',
      // Proxy bodies pass through unvalidated but for what the pipeline reads; the other routes take only string params.
      validation: false,
      docs: { title: 'Gateway proxy', description: 'Governed LLM gateway: /v1 proxy routes, health and metrics' },
    },
  ],
};
