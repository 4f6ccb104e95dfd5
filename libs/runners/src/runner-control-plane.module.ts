import { Module } from '@nestjs/common';
import { AuthModule } from '@svc/auth';
import { APP_CONFIG, AppConfig, LOGGER, Logger, Redis, REDIS } from '@svc/platform';
import { RunnerAccessGuard } from './access/runner-access.guard';
import { FakeRunnerProvider } from './providers/fake.provider';
import { LocalRunnerProvider } from './providers/local.provider';
import { ProtectedPaths } from './providers/protected-paths';
import { RunnerProviderRegistry } from './providers/provider-registry';
import { RunnerProvider } from './providers/runner-provider';
import { RunnerFailures } from './runner-failures';
import { RunnerOpsController } from './runner-ops.controller';
import { RunnerRecords } from './runner-records';
import { RUNNER_CLOCK, RUNNER_SETTINGS, RunnerSettings, runnerSettings, systemClock } from './runner-settings';
import { RunnerStatus } from './runner-status';
import { RunnerSweeper } from './runner-sweeper';
import { RunnersController } from './runners.controller';
import { RunnerStreamController } from './stream/runner-stream.controller';
import { RunnerStreamHub } from './stream/runner-stream.hub';
import { RunnerStreamRelay } from './stream/runner-stream.relay';
import { RunnerStreamService } from './stream/runner-stream.service';
import { ByovmUseCase } from './usecases/byovm.usecase';
import { CreateRunnerUseCase } from './usecases/create-runner.usecase';
import { ExecCommandUseCase } from './usecases/exec-command.usecase';
import { ExpireSessionUseCase } from './usecases/expire-session.usecase';
import { RunCanaryUseCase } from './usecases/run-canary.usecase';
import { StartSessionUseCase } from './usecases/start-session.usecase';
import { StopSessionUseCase } from './usecases/stop-session.usecase';
import { TerminateRunnerUseCase } from './usecases/terminate-runner.usecase';

/** The providers this deployment runs: `fake` always, `local` when turned on (docs/runners.md). */
function createProviderRegistry(settings: RunnerSettings, protectedPaths: ProtectedPaths): RunnerProviderRegistry {
  const providers: RunnerProvider[] = [new FakeRunnerProvider(settings.outputCapBytes)];
  if (settings.localEnabled) {
    providers.push(new LocalRunnerProvider({ workDir: settings.workDir, outputCapBytes: settings.outputCapBytes, protectedPaths }));
  }
  return new RunnerProviderRegistry(providers);
}

/** Injection token of the Redis relay of stream events (null without REDIS_URL). */
export const RUNNER_STREAM_RELAY = Symbol('RUNNER_STREAM_RELAY');

/**
 * The runner control plane (`/gateway/admin/runners`): runners, sessions, commands, audit events,
 * the SSE stream, health, prerequisites, canary and self-hosted registration, plus the TTL sweeper.
 * Imported by `apps/runner-control-plane` and by `npm start`'s gateway surface.
 */
@Module({
  imports: [AuthModule],
  controllers: [RunnerOpsController, RunnersController, RunnerStreamController],
  providers: [
    { provide: RUNNER_SETTINGS, inject: [APP_CONFIG], useFactory: (config: AppConfig) => runnerSettings(config) },
    { provide: RUNNER_CLOCK, useValue: systemClock },
    { provide: ProtectedPaths, inject: [RUNNER_SETTINGS], useFactory: (settings: RunnerSettings) => ProtectedPaths.create([settings.dataDir], process.pid) },
    { provide: RunnerProviderRegistry, inject: [RUNNER_SETTINGS, ProtectedPaths], useFactory: createProviderRegistry },
    RunnerStreamHub,
    {
      provide: RUNNER_STREAM_RELAY,
      inject: [RunnerStreamHub, REDIS, LOGGER],
      useFactory: (hub: RunnerStreamHub, redis: Redis | null, logger: Logger) => (redis ? new RunnerStreamRelay(hub, redis, logger) : null),
    },
    RunnerStreamService,
    RunnerRecords,
    RunnerFailures,
    RunnerStatus,
    RunnerAccessGuard,
    CreateRunnerUseCase,
    StartSessionUseCase,
    StopSessionUseCase,
    ExecCommandUseCase,
    TerminateRunnerUseCase,
    ExpireSessionUseCase,
    ByovmUseCase,
    RunCanaryUseCase,
    RunnerSweeper,
  ],
  exports: [RunnerStreamHub, RunnerProviderRegistry, RunnerSweeper, RUNNER_SETTINGS],
})
export class RunnerControlPlaneModule {}
