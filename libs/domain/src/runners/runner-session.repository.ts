import { newId } from '../shared/ids';
import { Patch, TenantRepository } from '../shared/tenant-repository';
import type { OrgId } from '../shared/tenancy';
import type { DocumentStore } from '../store/types';
import { LIVE_SESSION_STATES, RUNNER_SESSIONS, RunnerSessionEntity, SessionState } from './runner-session.entity';

export interface NewRunnerSession {
  runner_id: string;
  ttl_seconds: number;
  budget_usd: number;
  /** SHA-256 hex of the runner token issued with the session. */
  token_hash?: string | null;
}

export class RunnerSessionRepository extends TenantRepository<RunnerSessionEntity> {
  constructor(store: DocumentStore) {
    super(store, RUNNER_SESSIONS);
    this.defaultSort = { started_at: -1, _id: -1 };
  }

  /** A new session in `starting`. */
  create(orgId: OrgId, input: NewRunnerSession, now = new Date()): Promise<RunnerSessionEntity> {
    return this.insertIn(orgId, {
      _id: newId('runnerSession'),
      runner_id: input.runner_id,
      state: 'starting',
      started_at: now,
      expires_at: new Date(now.getTime() + input.ttl_seconds * 1000),
      ended_at: null,
      budget_usd: input.budget_usd,
      spent_usd: 0,
      token_hash: input.token_hash ?? null,
      created_at: now,
      updated_at: now,
    });
  }

  /** The runner's session that is still alive (starting, active or stopping), if any. */
  findLive(orgId: OrgId, runnerId: string): Promise<RunnerSessionEntity | null> {
    return this.findOneIn(orgId, { runner_id: runnerId, state: { $in: LIVE_SESSION_STATES } }, { sort: { started_at: -1, _id: -1 } });
  }

  listByRunner(orgId: OrgId, runnerId: string, limit = 50): Promise<RunnerSessionEntity[]> {
    return this.findIn(orgId, { runner_id: runnerId }, { sort: { started_at: -1, _id: -1 }, limit });
  }

  /** Moves a session from one of `from` to the patch's state; null when it was not in one of them. */
  transition(
    orgId: OrgId,
    id: string,
    from: SessionState[],
    patch: Patch<RunnerSessionEntity> & { state: SessionState },
    now = new Date(),
  ): Promise<RunnerSessionEntity | null> {
    return this.findOneAndUpdateIn(orgId, { _id: id, state: { $in: from } }, { $set: { ...patch, updated_at: now } });
  }

  /** Adds gateway spend to a session; returns it after. */
  addSpend(orgId: OrgId, id: string, amountUsd: number): Promise<RunnerSessionEntity | null> {
    return this.findOneAndUpdateIn(orgId, { _id: id }, { $inc: { spent_usd: amountUsd } });
  }

  /** Ends every live session of a runner (terminate); returns how many. */
  async endAllForRunner(orgId: OrgId, runnerId: string, state: SessionState, now = new Date()): Promise<number> {
    const result = await this.updateManyIn(
      orgId,
      { runner_id: runnerId, state: { $in: LIVE_SESSION_STATES } },
      { $set: { state, ended_at: now, updated_at: now } },
    );
    return result.modified;
  }

  /** Cross-tenant by design, for gateway authentication: the session a runner token was issued with. */
  findByTokenHash(tokenHash: string): Promise<RunnerSessionEntity | null> {
    return this.acrossTenants.findOne({ token_hash: tokenHash });
  }

  /** Cross-tenant by design, for the runner TTL sweep: live sessions whose TTL has elapsed. */
  listExpiredLiveAcrossOrgs(now = new Date(), limit = 100): Promise<RunnerSessionEntity[]> {
    return this.acrossTenants.find(
      { state: { $in: LIVE_SESSION_STATES }, expires_at: { $lte: now } },
      { sort: { expires_at: 1, _id: 1 }, limit },
    );
  }
}
