import { Injectable } from '@nestjs/common';
import type { OrgId, RunnerEntity } from '@svc/domain';
import { RunnerProviderRegistry } from '../providers/provider-registry';
import type { CreateRunnerDto } from '../dto/requests';
import { permissionDenied, providerError } from '../runner-errors';
import { RunnerFailures, runnerRef } from '../runner-failures';
import { assertPlanHasRunners } from '../runner-plan';
import { RunnerRecords, SYSTEM_ACTOR } from '../runner-records';

/** What the caller may do beyond `runner:create`. */
export interface CreateAccess {
  /** The caller holds `runner:terminate` (Admin level): it may create `local` runners that run any program. */
  mayRunHostPrograms: boolean;
}

/**
 * create → `provisioning` (`runner_created` by the caller, version 1; `runner_provisioning` when the
 * provider starts, version 2) → `ready` (`runner_ready`, version 3), or `failed` on a provider error
 * (`runner_failed`, `agent.failed`, 502 `provider_error`). The answer comes once provisioning ended.
 * A `local` runner with a profile beyond `locked` runs arbitrary programs as the service's user, so
 * creating one needs the Admin-level `runner:terminate` permission (`mayRunHostPrograms`).
 */
@Injectable()
export class CreateRunnerUseCase {
  constructor(
    private readonly records: RunnerRecords,
    private readonly providers: RunnerProviderRegistry,
    private readonly failures: RunnerFailures,
  ) {}

  async execute(orgId: OrgId, actor: string, input: CreateRunnerDto, access: CreateAccess): Promise<RunnerEntity> {
    await assertPlanHasRunners(this.records.repos, orgId);
    const provider = this.providers.get(input.provider_type);
    if (provider.type === 'local' && input.tool_profile !== 'locked' && !access.mayRunHostPrograms) {
      throw permissionDenied(
        'runner:terminate',
        `A local runner with the ${input.tool_profile} tool profile runs any program as the service's user on its host: creating one needs the ` +
          'Admin-level permission runner:terminate (Admin, Owner, or a key with admin:write); Operators may create local runners with the locked profile only.',
      );
    }
    const runner = await this.records.repos.runners.create(
      orgId,
      {
        provider_type: provider.type,
        tool_profile: input.tool_profile,
        ttl_seconds: input.ttl_seconds,
        name: input.name ?? null,
        runtime_version: input.runtime_version ?? null,
        image_ref: input.image_ref ?? null,
        session_budget_usd: input.session_budget_usd,
        created_by: actor,
      },
      this.records.now(),
    );
    await this.records.audit(orgId, {
      runner,
      type: 'runner_created',
      actor,
      detail: {
        name: runner.name,
        provider_type: runner.provider_type,
        tool_profile: runner.tool_profile,
        ttl_seconds: runner.ttl_seconds,
        runtime_version: runner.runtime_version,
        image_ref: runner.image_ref,
        session_budget_usd: runner.session_budget_usd,
      },
    });
    const provisioning = await this.records.moveRunner(orgId, runner, 'provision');
    await this.records.audit(orgId, { runner: provisioning, type: 'runner_provisioning', actor: SYSTEM_ACTOR, detail: { provider_type: provider.type } });
    const started = Date.now();
    try {
      await provider.provision(runnerRef(provisioning));
    } catch (error) {
      await this.failures.fail(orgId, runner._id, null, error);
      throw providerError(provider.type, runner._id, (error as Error).message);
    }
    const ready = await this.records.moveRunner(orgId, provisioning, 'provisioned');
    await this.records.audit(orgId, { runner: ready, type: 'runner_ready', actor: SYSTEM_ACTOR, detail: { provisioning_ms: Date.now() - started } });
    return ready;
  }
}
