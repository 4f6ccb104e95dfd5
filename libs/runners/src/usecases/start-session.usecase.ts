import { Inject, Injectable } from '@nestjs/common';
import { generateRunnerToken, hashRunnerToken, issueRunnerProof } from '@svc/auth';
import type { OrgId } from '@svc/domain';
import { INSTANCE_SECRETS, InstanceSecrets } from '@svc/runtime';
import { StartedSessionResponse, toSessionResponse } from '../dto/responses';
import { RunnerProviderRegistry } from '../providers/provider-registry';
import { providerError } from '../runner-errors';
import { RunnerFailures, runnerRef } from '../runner-failures';
import { RunnerRecords, SYSTEM_ACTOR } from '../runner-records';

/**
 * start: runner `ready` → `running` and a new session `starting` (`session_starting`), the provider
 * starts it, then the session is `active` and the runner's active session (`session_active`). The
 * answer carries the runner token and the `X-Runner-Proof`, shown this once.
 */
@Injectable()
export class StartSessionUseCase {
  constructor(
    private readonly records: RunnerRecords,
    private readonly providers: RunnerProviderRegistry,
    private readonly failures: RunnerFailures,
    @Inject(INSTANCE_SECRETS) private readonly secrets: InstanceSecrets,
  ) {}

  async execute(orgId: OrgId, actor: string, runnerId: string, ttlOverride?: number): Promise<StartedSessionResponse> {
    const runner = await this.records.loadRunner(orgId, runnerId);
    // The state first: a terminated runner is 409 invalid_state even when its provider is not configured.
    this.records.assertRunner(runner, 'start');
    const provider = this.providers.get(runner.provider_type);
    const running = await this.records.moveRunner(orgId, runner, 'start');
    const token = generateRunnerToken();
    const ttlSeconds = ttlOverride ?? runner.ttl_seconds;
    const starting = await this.records.repos.runnerSessions.create(
      orgId,
      { runner_id: runner._id, ttl_seconds: ttlSeconds, budget_usd: runner.session_budget_usd, token_hash: hashRunnerToken(token) },
      this.records.now(),
    );
    await this.records.audit(orgId, {
      runner: running,
      session: starting,
      type: 'session_starting',
      actor,
      detail: { ttl_seconds: ttlSeconds, budget_usd: starting.budget_usd, expires_at: starting.expires_at?.toISOString() ?? null },
    });
    try {
      await provider.startSession({ ...runnerRef(running), sessionId: starting._id });
    } catch (error) {
      await this.failures.fail(orgId, runner._id, starting._id, error);
      throw providerError(provider.type, runner._id, (error as Error).message);
    }
    const active = await this.records.moveSession(orgId, starting, 'activate');
    const attached = await this.records.moveRunner(orgId, running, 'session_change', { active_session_id: active._id });
    await this.records.audit(orgId, { runner: attached, session: active, type: 'session_active', actor: SYSTEM_ACTOR });
    return {
      ...toSessionResponse(active),
      runner_token: token,
      runner_proof: issueRunnerProof(this.secrets.masterKeys, { runnerId: runner._id, sessionId: active._id }),
    };
  }
}
