import { newId } from '../shared/ids';
import { Page, Patch, TenantRepository } from '../shared/tenant-repository';
import type { OrgId } from '../shared/tenancy';
import type { DocumentStore } from '../store/types';
import { RUNNERS, RunnerEntity, RunnerState, ToolProfile } from './runner.entity';

export interface NewRunner {
  provider_type: string;
  tool_profile: ToolProfile;
  ttl_seconds: number;
  name?: string | null;
  runtime_version?: string | null;
  image_ref?: string | null;
  machine_id?: string | null;
  session_budget_usd?: number;
  created_by?: string | null;
}

export const DEFAULT_SESSION_BUDGET_USD = 5;

export class RunnerRepository extends TenantRepository<RunnerEntity> {
  constructor(store: DocumentStore) {
    super(store, RUNNERS);
  }

  /** Starts in `provisioning` at version 1. Throws DuplicateKeyError for a machine id already registered. */
  create(orgId: OrgId, input: NewRunner, now = new Date()): Promise<RunnerEntity> {
    return this.insertIn(orgId, {
      _id: newId('runner'),
      name: input.name ?? null,
      state: 'provisioning',
      provider_type: input.provider_type,
      tool_profile: input.tool_profile,
      ttl_seconds: input.ttl_seconds,
      runtime_version: input.runtime_version ?? null,
      image_ref: input.image_ref ?? null,
      machine_id: input.machine_id ?? null,
      session_budget_usd: input.session_budget_usd ?? DEFAULT_SESSION_BUDGET_USD,
      active_session_id: null,
      version: 1,
      error: null,
      created_by: input.created_by ?? null,
      created_at: now,
      updated_at: now,
    });
  }

  listRunners(orgId: OrgId, options: { state?: RunnerState; offset?: number; limit?: number } = {}): Promise<Page<RunnerEntity>> {
    return this.list(orgId, { offset: options.offset, limit: options.limit ?? 100, filter: options.state ? { state: options.state } : {} });
  }

  /**
   * Optimistic update: applies the patch only if the runner is still at `expectedVersion` (and, when
   * given, in one of `fromStates`), bumping the version. Null when someone else got there first.
   */
  updateVersioned(
    orgId: OrgId,
    id: string,
    expectedVersion: number,
    patch: Patch<Omit<RunnerEntity, 'version'>>,
    fromStates?: RunnerState[],
    now = new Date(),
  ): Promise<RunnerEntity | null> {
    const fields: Record<string, unknown> = { ...patch, updated_at: now };
    delete fields['version'];
    delete fields['_id'];
    delete fields['org_id'];
    return this.findOneAndUpdateIn(
      orgId,
      { _id: id, version: expectedVersion, ...(fromStates ? { state: { $in: fromStates } } : {}) },
      { $set: fields, $inc: { version: 1 } },
    );
  }

  findByMachineId(orgId: OrgId, machineId: string): Promise<RunnerEntity | null> {
    return this.findOneIn(orgId, { machine_id: machineId });
  }

  /** Cross-tenant by design, for the reconciler: runners in a state since before `before`. */
  listInStateAcrossOrgs(states: RunnerState[], before: Date, limit = 100): Promise<RunnerEntity[]> {
    return this.acrossTenants.find({ state: { $in: states }, updated_at: { $lt: before } }, { sort: { updated_at: 1, _id: 1 }, limit });
  }
}
