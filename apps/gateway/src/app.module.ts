import { Module } from '@nestjs/common';
import { LivenessModule, SERVICE_VERSION } from '@svc/platform';
import { GatewayProxyModule } from '@svc/proxy';
import type { ServiceDefinition } from '@svc/runtime';

@Module({ imports: [LivenessModule, GatewayProxyModule] })
export class AppModule {}

export const SERVICE: ServiceDefinition = {
  name: 'gateway',
  version: SERVICE_VERSION,
  surfaces: [
    {
      label: 'gateway',
      module: AppModule,
      port: 'GATEWAY_PORT',
      surface: 'gateway',
      rawBodyPrefix: '/v1/',
      docs: { title: 'Gateway proxy', description: 'Governed LLM gateway: /v1 proxy routes, health and metrics' },
    },
  ],
};
