import { roundUsd, UsageRecordEntity, UsageSource } from '@svc/domain';
import { invalidCursor, MAX_CURSOR_CHARS } from '../common/admin-errors';
import { UsageRecordView } from './dto/usage.dto';

/** A record as `/usage` and the CSV export show it: amounts without float noise (`roundUsd`), the record itself untouched. */
export function toUsageView(record: UsageRecordEntity): UsageRecordView {
  return {
    request_id: record._id,
    created_at: record.created_at.toISOString(),
    org_id: record.org_id,
    key_id: record.key_id,
    team_id: record.team_id,
    agent: record.agent,
    provider: record.provider,
    model: record.model,
    endpoint: record.endpoint,
    stream: record.stream,
    status_code: record.status_code,
    blocked_by: record.blocked_by,
    input_tokens: record.input_tokens,
    output_tokens: record.output_tokens,
    estimated_cost: roundUsd(record.estimated_cost),
    cost: roundUsd(record.cost),
    usage_source: record.usage_source ?? legacySource(record),
    latency_ms: record.latency_ms,
    upstream_latency_ms: record.upstream_latency_ms,
    governance_ms: record.governance_ms,
    runner_id: record.runner_id,
    session_id: record.session_id,
  };
}

/**
 * `usage_source` of a record written before the field existed: tokens were then only the
 * provider's, and a cost without tokens was the gateway's estimate (a stream left before its usage).
 */
function legacySource(record: UsageRecordEntity): UsageSource {
  if (record.input_tokens > 0 || record.output_tokens > 0) return 'provider';
  return record.cost > 0 ? 'estimate' : 'none';
}

export interface UsageCursor {
  created_at: Date;
  _id: string;
}

/** An opaque keyset cursor: the creation time and id of the last record of a page. */
export function encodeCursor(record: Pick<UsageRecordEntity, 'created_at' | '_id'>): string {
  return Buffer.from(`${record.created_at.getTime()}:${record._id}`, 'utf8').toString('base64url');
}

/** 400 `invalid_cursor` for anything `encodeCursor` did not make. */
export function decodeCursor(cursor: string): UsageCursor {
  const match = cursor.length <= MAX_CURSOR_CHARS ? /^(\d{1,15}):(.{1,200})$/s.exec(Buffer.from(cursor, 'base64url').toString('utf8')) : null;
  if (!match) throw invalidCursor();
  return { created_at: new Date(Number(match[1])), _id: match[2] };
}

export const DAY_MS = 86_400_000;

export function startOfUtcDay(date: Date): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
}

/** `YYYY-MM-DD` of every UTC day from `from` to `to`, both included. */
export function utcDays(from: Date, to: Date): string[] {
  const days: string[] = [];
  for (let t = startOfUtcDay(from).getTime(); t <= to.getTime(); t += DAY_MS) days.push(new Date(t).toISOString().slice(0, 10));
  return days;
}
