import { Module } from '@nestjs/common';
import { maskPii } from '@svc/governance';
import { LivenessModule, SERVICE_VERSION } from '@svc/platform';
import { RunnerControlPlaneModule } from '@svc/runners';
import type { ServiceDefinition } from '@svc/runtime';

@Module({ imports: [LivenessModule, RunnerControlPlaneModule] })
export class AppModule {}

export const SERVICE: ServiceDefinition = {
  name: 'runner-control-plane',
  version: SERVICE_VERSION,
  // LOG_BODIES: logged bodies carry no personal data (docs/deploy-operating.md "Logs and secrets").
  maskLoggedText: maskPii,
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
