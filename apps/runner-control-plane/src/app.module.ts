import { Module } from '@nestjs/common';
import { LivenessModule, SERVICE_VERSION } from '@svc/platform';
import { RunnerControlPlaneModule } from '@svc/runners';
import type { ServiceDefinition } from '@svc/runtime';

@Module({ imports: [LivenessModule, RunnerControlPlaneModule] })
export class AppModule {}

export const SERVICE: ServiceDefinition = {
  name: 'runner-control-plane',
  version: SERVICE_VERSION,
  surfaces: [
    {
      label: 'runner-control-plane',
      module: AppModule,
      port: 'RUNNER_CONTROL_PLANE_PORT',
      surface: 'gateway',
      docs: { title: 'Runner control plane', description: 'Managed runners under /gateway/admin/runners (private beta)' },
    },
  ],
};
