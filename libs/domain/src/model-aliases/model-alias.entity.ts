import { defineCollection } from '../store/types';

/** An organization's custom model alias, resolved before governance checks. */
export interface ModelAliasEntity {
  /** `als_...` */
  _id: string;
  org_id: string;
  alias: string;
  /** The model it stands for (may be `provider/model`). */
  model: string;
  /** Optional explicit provider. */
  provider: string | null;
  description: string | null;
  created_at: Date;
  updated_at: Date;
}

export const MODEL_ALIASES = defineCollection<ModelAliasEntity>('model_aliases', [
  {
    fields: { org_id: 1, alias: 1 },
    unique: true,
    name: 'org_alias_unique',
    comment: 'resolve an alias on each request (cached); one alias name per org',
  },
]);
