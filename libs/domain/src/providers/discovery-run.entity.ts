import { defineCollection } from '../store/types';

/** One model-discovery run on a target: the discovery history (audit). */
export interface DiscoveryRunEntity {
  /** `dsc_...` */
  _id: string;
  org_id: string;
  target_id: string;
  provider_id: string;
  status: 'succeeded' | 'failed';
  model_count: number;
  added: number;
  removed: number;
  error: string | null;
  triggered_by: string | null;
  started_at: Date;
  finished_at: Date;
  duration_ms: number;
}

export const DISCOVERY_RUN_RETENTION_SECONDS = 90 * 24 * 3600;

export const DISCOVERY_RUNS = defineCollection<DiscoveryRunEntity>('discovery_runs', [
  { fields: { org_id: 1, started_at: -1 }, comment: 'discovery history of an org (optionally one target), newest first' },
  { fields: { started_at: 1 }, expireAfterSeconds: DISCOVERY_RUN_RETENTION_SECONDS, comment: 'retention: 90 days' },
]);
