import { defineCollection } from '../store/types';

/** A model id found by discovery on a provider target. */
export interface DiscoveredModelEntity {
  /** `mdl_...` */
  _id: string;
  org_id: string;
  target_id: string;
  provider_id: string;
  model_id: string;
  owned_by: string | null;
  context_window: number | null;
  discovered_at: Date;
  last_seen_at: Date;
}

export const DISCOVERED_MODELS = defineCollection<DiscoveredModelEntity>('discovered_models', [
  {
    fields: { org_id: 1, target_id: 1, model_id: 1 },
    unique: true,
    name: 'org_target_model_unique',
    comment: 'one entry per model per target; the catalog of a target',
  },
  { fields: { org_id: 1, provider_id: 1, _id: 1 }, comment: 'discovery catalog, optionally by provider, cursor-paged by _id' },
]);
