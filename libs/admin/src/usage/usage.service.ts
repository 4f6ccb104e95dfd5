import { Inject, Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { OrgId, Repositories, roundUsd, TimeRange } from '@svc/domain';
import { invalidRequest, notFound } from '@svc/platform';
import { REPOSITORIES } from '@svc/runtime';
import { csvRow } from '../common/csv';
import { DailyUsage, DailyUsageReport, USAGE_COLUMNS, UsageListQuery, UsagePage, UsageRecordDetails } from './dto/usage.dto';
import { DAY_MS, decodeCursor, encodeCursor, startOfUtcDay, toUsageView, utcDays } from './usage-view';

export const DEFAULT_USAGE_DAYS = 7;
export const DEFAULT_USAGE_LIMIT = 100;
export const DEFAULT_DAILY_DAYS = 30;
const EXPORT_BATCH = 1000;

/** The last `days` × 24 hours up to now. */
export function lastDays(days: number, now = new Date()): TimeRange & { to: Date } {
  return { from: new Date(now.getTime() - days * DAY_MS), to: now };
}

/** Usage records of the caller's organization: pages, one record, daily totals and the CSV export. */
@Injectable()
export class UsageService {
  constructor(@Inject(REPOSITORIES) private readonly repositories: Repositories) {}

  /** Newest first; `offset` paging, or keyset paging with `cursor` (stable while records arrive). */
  async list(principal: Principal, query: UsageListQuery): Promise<UsagePage> {
    if (query.cursor !== undefined && query.offset !== undefined) throw invalidRequest('Send offset or cursor, not both', 'cursor');
    const days = query.days ?? DEFAULT_USAGE_DAYS;
    const limit = query.limit ?? DEFAULT_USAGE_LIMIT;
    const range = lastDays(days);
    const usage = this.repositories.usage;
    const total = await usage.countRange(principal.orgId, range);
    let records;
    let more: boolean;
    let offset: number | null = null;
    if (query.cursor !== undefined) {
      const rows = await usage.listBefore(principal.orgId, range, decodeCursor(query.cursor), limit + 1);
      more = rows.length > limit;
      records = rows.slice(0, limit);
    } else {
      offset = query.offset ?? 0;
      records = (await usage.listRange(principal.orgId, range, { offset, limit })).items;
      more = offset + records.length < total;
    }
    const last = records[records.length - 1];
    return {
      items: records.map(toUsageView),
      total,
      limit,
      offset,
      next_cursor: more && last ? encodeCursor(last) : null,
      days,
      from: range.from.toISOString(),
      to: range.to.toISOString(),
    };
  }

  async get(principal: Principal, requestId: string): Promise<UsageRecordDetails> {
    const record = await this.repositories.usage.findById(principal.orgId, requestId);
    if (!record) throw notFound('Usage record', 'request_id');
    return { ...toUsageView(record), replay: record.replay ?? null };
  }

  /** Totals per UTC day for the last `days` calendar days (today included), zero-filled. */
  async daily(principal: Principal, days: number, now = new Date()): Promise<DailyUsageReport> {
    const from = startOfUtcDay(new Date(now.getTime() - (days - 1) * DAY_MS));
    const rows = await this.repositories.usage.totalsByTime(principal.orgId, { from, to: now }, 'day');
    const byDay = new Map(rows.map((row) => [row.bucket, row]));
    const items = utcDays(from, now).map((date): DailyUsage => {
      const row = byDay.get(date);
      return {
        date,
        requests: row?.requests ?? 0,
        blocked: row?.blocked ?? 0,
        cost: roundUsd(row?.cost ?? 0),
        estimated_cost: roundUsd(row?.estimated_cost ?? 0),
        input_tokens: row?.input_tokens ?? 0,
        output_tokens: row?.output_tokens ?? 0,
      };
    });
    return {
      days,
      from: from.toISOString(),
      to: now.toISOString(),
      items,
      total_cost: roundUsd(rows.reduce((sum, row) => sum + row.cost, 0)),
      total_requests: items.reduce((sum, item) => sum + item.requests, 0),
    };
  }

  /** CSV lines of every record of the range, newest first, read in batches (memory stays flat). */
  async *csv(orgId: OrgId, range: TimeRange): AsyncGenerator<string> {
    yield csvRow(USAGE_COLUMNS);
    let before = null;
    for (;;) {
      const rows = await this.repositories.usage.listBefore(orgId, range, before, EXPORT_BATCH);
      for (const row of rows) {
        const view = toUsageView(row);
        yield csvRow(USAGE_COLUMNS.map((column) => view[column]));
      }
      if (rows.length < EXPORT_BATCH) return;
      const last = rows[rows.length - 1];
      before = { created_at: last.created_at, _id: last._id };
    }
  }
}
