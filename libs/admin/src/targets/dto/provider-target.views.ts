import { ApiProperty } from '@nestjs/swagger';
import { PROVIDER_TARGET_KINDS, ProviderTargetKind } from '@svc/domain';

/** A provider target as the admin routes answer it: never its API key, at most the key's last four characters. */
export class ProviderTargetView {
  @ApiProperty({ type: String })
  id!: string;
  @ApiProperty({ type: String })
  name!: string;
  @ApiProperty({ type: String, description: 'routing id (`provider_id/model`)' })
  provider_id!: string;
  @ApiProperty({ enum: PROVIDER_TARGET_KINDS })
  kind!: ProviderTargetKind;
  /** Same as kind. */
  @ApiProperty({ enum: PROVIDER_TARGET_KINDS, description: 'same as kind' })
  format!: ProviderTargetKind;
  @ApiProperty({ type: String })
  base_url!: string;
  /** Where format-A requests go: `{api_base}/chat/completions`. */
  @ApiProperty({ type: String, description: 'where format-A requests go: `{api_base}/chat/completions`' })
  api_base!: string;
  @ApiProperty({ type: Boolean })
  has_api_key!: boolean;
  @ApiProperty({ type: String, nullable: true })
  api_key_last_four!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, description: 'extra headers sent upstream; the value of a credential header (stored sealed, from before such names were refused) is `[REDACTED]`' })
  headers!: Record<string, string>;
  @ApiProperty({ type: Boolean })
  enabled!: boolean;
  @ApiProperty({ type: [String], description: 'models configured by hand' })
  models!: string[];
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  last_discovery_at!: string | null;
  @ApiProperty({ type: String, enum: ['succeeded', 'failed'], nullable: true })
  last_discovery_status!: 'succeeded' | 'failed' | null;
  @ApiProperty({ type: String, format: 'date-time' })
  created_at!: string;
  @ApiProperty({ type: String, format: 'date-time' })
  updated_at!: string;
}

/** A record of one target (a model discovered on it, a discovery run): its id, the target's and its routing id. */
export class TargetRecordView {
  @ApiProperty({ type: String })
  id!: string;
  @ApiProperty({ type: String })
  target_id!: string;
  @ApiProperty({ type: String })
  provider_id!: string;
}

/** One model discovered on a target. */
export class DiscoveredModelView extends TargetRecordView {
  @ApiProperty({ type: String, description: 'the id the target lists' })
  model_id!: string;
  /** The id to send as `model` on the generic endpoint. */
  @ApiProperty({ type: String, description: 'the id to send as `model` on the generic endpoint' })
  routable_id!: string;
  @ApiProperty({ type: String, nullable: true })
  owned_by!: string | null;
  @ApiProperty({ type: 'integer', nullable: true })
  context_window!: number | null;
  @ApiProperty({ type: String, format: 'date-time' })
  discovered_at!: string;
  @ApiProperty({ type: String, format: 'date-time' })
  last_seen_at!: string;
}

/** One discovery run (the audit history). */
export class DiscoveryRunView extends TargetRecordView {
  @ApiProperty({ enum: ['succeeded', 'failed'] })
  status!: 'succeeded' | 'failed';
  @ApiProperty({ type: 'integer' })
  model_count!: number;
  @ApiProperty({ type: 'integer' })
  added!: number;
  @ApiProperty({ type: 'integer' })
  removed!: number;
  @ApiProperty({ type: String, nullable: true })
  error!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'the user or key that ran it' })
  triggered_by!: string | null;
  @ApiProperty({ type: String, format: 'date-time' })
  started_at!: string;
  @ApiProperty({ type: String, format: 'date-time' })
  finished_at!: string;
  @ApiProperty({ type: Number })
  duration_ms!: number;
}

/** `POST /provider-targets/{id}/discover-models`: a successful run (a failed one is an error answer). */
export class DiscoveryResult {
  @ApiProperty({ type: String })
  run_id!: string;
  @ApiProperty({ type: String })
  target_id!: string;
  @ApiProperty({ type: String })
  provider_id!: string;
  @ApiProperty({ enum: ['succeeded'] })
  status!: 'succeeded';
  @ApiProperty({ type: String, description: 'the URL the list was read from' })
  source_url!: string;
  /** The discovered model ids, sorted. */
  @ApiProperty({ type: [String], description: 'the discovered model ids, sorted' })
  models!: string[];
  /** The same, as sent in `model` on the generic endpoint. */
  @ApiProperty({ type: [String], description: 'the same, as sent in `model` on the generic endpoint' })
  routable_models!: string[];
  @ApiProperty({ type: 'integer' })
  added!: number;
  @ApiProperty({ type: 'integer' })
  removed!: number;
  @ApiProperty({ type: 'integer' })
  total!: number;
  @ApiProperty({ type: Number })
  duration_ms!: number;
}

/** `GET /provider-targets/{id}/catalog`. */
export class TargetCatalog {
  @ApiProperty({ type: String })
  target_id!: string;
  @ApiProperty({ type: String })
  provider_id!: string;
  @ApiProperty({ type: () => [DiscoveredModelView] })
  items!: DiscoveredModelView[];
  @ApiProperty({ type: 'integer' })
  total!: number;
}

/** `GET /discovery/catalog`: `total` counts every model of the filter, `next_cursor` pages through them. */
export class CatalogPage {
  @ApiProperty({ type: () => [DiscoveredModelView] })
  items!: DiscoveredModelView[];
  @ApiProperty({ type: 'integer' })
  total!: number;
  @ApiProperty({ type: String, nullable: true, description: 'pass as `cursor` for the next page; null on the last' })
  next_cursor!: string | null;
  @ApiProperty({ type: 'integer' })
  limit!: number;
}

/** `GET /discovery/history`: the newest `limit` runs; `total` counts every run of the filter. */
export class HistoryPage {
  @ApiProperty({ type: () => [DiscoveryRunView] })
  items!: DiscoveryRunView[];
  @ApiProperty({ type: 'integer' })
  total!: number;
  @ApiProperty({ type: 'integer' })
  limit!: number;
}
