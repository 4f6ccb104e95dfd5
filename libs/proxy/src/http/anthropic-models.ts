import { invalidRequest } from '@svc/platform';
import type { ModelListEntry } from '../providers';

/**
 * The B provider's own model list format, served at the Anthropic SDK's paths below a B base
 * (`GET /v1/{provider_b}/v1/models`, `GET /v1/{provider_b}/v1/models/{model}`): the Models API's
 * `ModelInfo` entries, paged with `limit`, `after_id` and `before_id` as `client.models.list()`
 * pages (docs/gateway-routes.md "The Anthropic SDK on the B routes").
 */

/** One entry of the B model list (the Models API's `ModelInfo`). */
export interface AnthropicModelInfo {
  type: 'model';
  id: string;
  display_name: string;
  /** RFC 3339. The registry keeps no release dates: the epoch, as the Models API gives for an unknown date. */
  created_at: string;
}

export interface AnthropicModelPage {
  data: AnthropicModelInfo[];
  has_more: boolean;
  first_id: string | null;
  last_id: string | null;
}

/** `created_at` of every listed model (format A lists `created: 0`). */
const MODEL_EPOCH = new Date(0).toISOString();

/** The Models API's page size: 20 unless asked, 1 to 1000. */
const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 1000;

export function toModelInfo(model: ModelListEntry): AnthropicModelInfo {
  return { type: 'model', id: model.id, display_name: model.description || model.id, created_at: MODEL_EPOCH };
}

/**
 * The page of `models` the query asks for: the first `limit`, the `limit` after `after_id`, or the
 * `limit` immediately before `before_id`. `has_more` tells whether more lie in that direction (the
 * SDK's iteration follows `last_id`, or `first_id` when paging backwards). A bad `limit`, a cursor
 * that is not a listed id, or both cursors at once is 400 `invalid_request`.
 */
export function anthropicModelPage(models: readonly ModelListEntry[], query: unknown): AnthropicModelPage {
  const params = (query ?? {}) as Record<string, unknown>;
  const limit = parseLimit(params.limit);
  const after = cursor(params, 'after_id');
  const before = cursor(params, 'before_id');
  if (after !== undefined && before !== undefined) throw invalidRequest('Send after_id or before_id, not both.', 'before_id');
  const ids = models.map((model) => model.id);
  let start = 0;
  let end = Math.min(models.length, limit);
  let hasMore = end < models.length;
  if (after !== undefined) {
    start = position(ids, after, 'after_id') + 1;
    end = Math.min(models.length, start + limit);
    hasMore = end < models.length;
  } else if (before !== undefined) {
    end = position(ids, before, 'before_id');
    start = Math.max(0, end - limit);
    hasMore = start > 0;
  }
  const data = models.slice(start, end).map(toModelInfo);
  return { data, has_more: hasMore, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
}

function parseLimit(value: unknown): number {
  if (value === undefined) return DEFAULT_LIMIT;
  const limit = typeof value === 'string' && /^\d{1,7}$/.test(value) ? Number(value) : NaN;
  if (!(limit >= 1 && limit <= MAX_LIMIT)) {
    throw invalidRequest(`limit must be an integer from 1 to ${MAX_LIMIT} (default ${DEFAULT_LIMIT}); got ${JSON.stringify(value)}.`, 'limit');
  }
  return limit;
}

/** A cursor parameter; an empty one counts as not sent, a repeated one is refused. */
function cursor(params: Record<string, unknown>, name: 'after_id' | 'before_id'): string | undefined {
  const value = params[name];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw invalidRequest(`${name} must be given once, as a model id of this list.`, name);
  return value;
}

function position(ids: readonly string[], id: string, name: 'after_id' | 'before_id'): number {
  const index = ids.indexOf(id);
  if (index < 0) throw invalidRequest(`${name} '${id}' is not a model of this list; pass the first_id or last_id of a page it returned.`, name);
  return index;
}
