import { newId } from '../shared/ids';
import { TenantRepository } from '../shared/tenant-repository';
import type { OrgId } from '../shared/tenancy';
import type { DocumentStore } from '../store/types';
import { RUNNER_EVENTS, RunnerEventEntity, RunnerEventType } from './runner-event.entity';

export interface NewRunnerEvent {
  runner_id: string;
  session_id?: string | null;
  event_type: RunnerEventType;
  actor: string;
  detail?: Record<string, unknown>;
}

export class RunnerEventRepository extends TenantRepository<RunnerEventEntity> {
  constructor(store: DocumentStore) {
    super(store, RUNNER_EVENTS);
    this.defaultSort = { timestamp: -1, _id: -1 };
    this.stampsUpdatedAt = false;
  }

  append(orgId: OrgId, input: NewRunnerEvent, at = new Date()): Promise<RunnerEventEntity> {
    return this.insertIn(orgId, {
      _id: newId('runnerEvent'),
      runner_id: input.runner_id,
      session_id: input.session_id ?? null,
      event_type: input.event_type,
      actor: input.actor,
      detail: { ...(input.detail ?? {}) },
      timestamp: at,
    });
  }

  /** The runner's latest events (newest first) and how many it has in all. */
  async listByRunner(orgId: OrgId, runnerId: string, limit = 50): Promise<{ events: RunnerEventEntity[]; total: number }> {
    const page = await this.list(orgId, { filter: { runner_id: runnerId }, limit });
    return { events: page.items, total: page.total };
  }
}
