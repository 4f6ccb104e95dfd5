import { Injectable } from '@nestjs/common';
import type { OrgId } from '@svc/domain';
import { ConflictError, GatewayError } from '@svc/platform';
import { CreateRunnerUseCase } from './create-runner.usecase';
import { ExecCommandUseCase } from './exec-command.usecase';
import { StartSessionUseCase } from './start-session.usecase';
import { StopSessionUseCase } from './stop-session.usecase';
import { TerminateRunnerUseCase } from './terminate-runner.usecase';

export type CanaryStepName = 'create' | 'start' | 'exec' | 'stop' | 'cleanup';

export interface CanaryStep {
  step: CanaryStepName;
  status: 'passed' | 'failed' | 'skipped';
  duration_ms: number;
  detail: Record<string, unknown>;
}

export interface CanaryReport {
  status: 'passed' | 'failed';
  provider: 'fake';
  runner_id: string | null;
  session_id: string | null;
  steps: CanaryStep[];
  duration_ms: number;
}

export const CANARY_ARGV = ['echo', 'svc-canary'];

/**
 * The canary lifecycle test of SPEC.md: create, start, exec, stop on the `fake` provider, each
 * step's result and time reported; then the canary runner is terminated (cleanup), so nothing is
 * left running. Its audit events stay, as for any runner (it is named `canary`).
 */
@Injectable()
export class RunCanaryUseCase {
  constructor(
    private readonly create: CreateRunnerUseCase,
    private readonly start: StartSessionUseCase,
    private readonly exec: ExecCommandUseCase,
    private readonly stop: StopSessionUseCase,
    private readonly terminate: TerminateRunnerUseCase,
  ) {}

  async execute(orgId: OrgId, actor: string): Promise<CanaryReport> {
    const began = Date.now();
    const steps: CanaryStep[] = [];
    let runnerId: string | null = null;
    let sessionId: string | null = null;
    let failed = false;

    const step = async (name: CanaryStepName, work: () => Promise<Record<string, unknown>>): Promise<void> => {
      if (failed) {
        steps.push({ step: name, status: 'skipped', duration_ms: 0, detail: {} });
        return;
      }
      const at = Date.now();
      try {
        const detail = await work();
        steps.push({ step: name, status: 'passed', duration_ms: Date.now() - at, detail });
      } catch (error) {
        failed = true;
        steps.push({ step: name, status: 'failed', duration_ms: Date.now() - at, detail: describe(error) });
      }
    };

    await step('create', async () => {
      const runner = await this.create.execute(orgId, actor, { provider_type: 'fake', tool_profile: 'locked', ttl_seconds: 60, name: 'canary' }, { mayRunHostPrograms: false });
      runnerId = runner._id;
      return { state: runner.state, version: runner.version };
    });
    await step('start', async () => {
      const session = await this.start.execute(orgId, actor, runnerId as string);
      sessionId = session.session_id;
      return { state: session.state };
    });
    await step('exec', async () => {
      const command = await this.exec.execute(orgId, actor, runnerId as string, sessionId as string, CANARY_ARGV, 10);
      const expected = `${CANARY_ARGV.join(' ')}\n`;
      if (command.exit_code !== 0 || command.stdout !== expected) {
        throw new Error(`unexpected result: exit code ${command.exit_code}, stdout ${JSON.stringify(command.stdout)}`);
      }
      return { exit_code: command.exit_code, stdout: command.stdout };
    });
    await step('stop', async () => {
      const session = await this.stop.execute(orgId, actor, runnerId as string, sessionId as string);
      return { state: session.state };
    });
    const cleanupAt = Date.now();
    if (runnerId) {
      try {
        const runner = await this.terminate.execute(orgId, 'system:canary', runnerId);
        steps.push({ step: 'cleanup', status: 'passed', duration_ms: Date.now() - cleanupAt, detail: { state: runner.state } });
      } catch (error) {
        failed = true;
        steps.push({ step: 'cleanup', status: 'failed', duration_ms: Date.now() - cleanupAt, detail: describe(error) });
      }
    } else {
      steps.push({ step: 'cleanup', status: 'skipped', duration_ms: 0, detail: {} });
    }
    return { status: failed ? 'failed' : 'passed', provider: 'fake', runner_id: runnerId, session_id: sessionId, steps, duration_ms: Date.now() - began };
  }
}

function describe(error: unknown): Record<string, unknown> {
  if (error instanceof GatewayError) return { code: error.body.code, message: error.body.message, http_status: error.status };
  if (error instanceof ConflictError) return { code: error.code, message: error.message, http_status: 409 };
  return { message: error instanceof Error ? error.message : String(error) };
}
