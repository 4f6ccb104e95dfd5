import { Injectable } from '@nestjs/common';
import { DuplicateKeyError, OrgId, RunnerEntity } from '@svc/domain';
import { ConflictError } from '@svc/platform';
import type { RegisterByovmDto } from '../dto/requests';
import { BYOVM_PROVIDER_TYPE } from '../providers/provider-registry';
import { runnerNotFound } from '../runner-errors';
import { assertPlanHasRunners } from '../runner-plan';
import { RunnerRecords, SYSTEM_ACTOR } from '../runner-records';
import { TerminateRunnerUseCase } from './terminate-runner.usecase';

const DEFAULT_BYOVM_TTL_SECONDS = 3_600;

/**
 * Self-hosted (BYOVM) runners. Registration records a machine as a runner of provider type
 * `byovm`, `ready` at once (`runner_created`, `runner_ready`), on a plan with runners (403
 * `feature_not_on_plan` otherwise, like create); a machine id registers once per
 * organization (409 `runner_already_registered` with `existing_runner_id`). Deregistration
 * terminates it and releases the machine id, so the machine can register again.
 */
@Injectable()
export class ByovmUseCase {
  constructor(
    private readonly records: RunnerRecords,
    private readonly terminate: TerminateRunnerUseCase,
  ) {}

  async register(orgId: OrgId, actor: string, input: RegisterByovmDto): Promise<RunnerEntity> {
    const { repos } = this.records;
    await assertPlanHasRunners(repos, orgId);
    const existing = await repos.runners.findByMachineId(orgId, input.machine_id);
    if (existing) throw alreadyRegistered(input.machine_id, existing._id);
    let runner: RunnerEntity;
    try {
      runner = await repos.runners.create(
        orgId,
        {
          provider_type: BYOVM_PROVIDER_TYPE,
          tool_profile: input.tool_profile ?? 'locked',
          ttl_seconds: input.ttl_seconds ?? DEFAULT_BYOVM_TTL_SECONDS,
          name: input.name ?? input.machine_id,
          runtime_version: input.runtime_version ?? null,
          machine_id: input.machine_id,
          created_by: actor,
        },
        this.records.now(),
      );
    } catch (error) {
      if (!(error instanceof DuplicateKeyError)) throw error;
      const winner = await repos.runners.findByMachineId(orgId, input.machine_id);
      throw alreadyRegistered(input.machine_id, winner?._id ?? null);
    }
    await this.records.audit(orgId, {
      runner,
      type: 'runner_created',
      actor,
      detail: { provider_type: BYOVM_PROVIDER_TYPE, machine_id: input.machine_id, tool_profile: runner.tool_profile, name: runner.name },
    });
    const ready = await this.records.moveRunner(orgId, runner, 'provisioned');
    await this.records.audit(orgId, { runner: ready, type: 'runner_ready', actor: SYSTEM_ACTOR, detail: { machine_id: input.machine_id } });
    return ready;
  }

  async deregister(orgId: OrgId, actor: string, runnerId: string): Promise<RunnerEntity> {
    const runner = await this.records.loadRunner(orgId, runnerId);
    if (runner.provider_type !== BYOVM_PROVIDER_TYPE) throw runnerNotFound(runnerId);
    return this.terminate.execute(orgId, actor, runnerId, { detail: { deregistered: true } });
  }
}

function alreadyRegistered(machineId: string, existingRunnerId: string | null): ConflictError {
  return new ConflictError('runner_already_registered', `Machine ${machineId} is already registered as runner ${existingRunnerId ?? '(unknown)'}`, {
    existing_runner_id: existingRunnerId,
  });
}
