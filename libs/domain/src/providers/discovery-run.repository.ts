import { newId } from '../shared/ids';
import { TenantRepository } from '../shared/tenant-repository';
import type { OrgId } from '../shared/tenancy';
import type { DocumentStore } from '../store/types';
import { DISCOVERY_RUNS, DiscoveryRunEntity } from './discovery-run.entity';

export type NewDiscoveryRun = Omit<DiscoveryRunEntity, '_id' | 'org_id' | 'duration_ms'>;

export class DiscoveryRunRepository extends TenantRepository<DiscoveryRunEntity> {
  constructor(store: DocumentStore) {
    super(store, DISCOVERY_RUNS);
    this.defaultSort = { started_at: -1, _id: -1 };
    this.stampsUpdatedAt = false;
  }

  record(orgId: OrgId, run: NewDiscoveryRun): Promise<DiscoveryRunEntity> {
    return this.insertIn(orgId, {
      ...run,
      _id: newId('discoveryRun'),
      duration_ms: Math.max(0, run.finished_at.getTime() - run.started_at.getTime()),
    });
  }

  listRecent(orgId: OrgId, limit = 50, targetId?: string): Promise<DiscoveryRunEntity[]> {
    return this.findIn(orgId, targetId ? { target_id: targetId } : {}, {
      sort: { started_at: -1, _id: -1 },
      limit: Math.min(1000, Math.max(1, limit)),
    });
  }
}
