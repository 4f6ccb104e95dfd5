import { Get, Inject, Param, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Readable } from 'node:stream';
import { ApiOkResponse } from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '@svc/auth';
import { LOGGER, Logger } from '@svc/platform';
import { AdminQuery } from '../common/admin-query';
import { AdminController, AdminRoute } from '../common/admin-route';
import { attachment, csvContent } from '../common/csv';
import { DailyUsageReport, USAGE_COLUMNS, UsageDaysQuery, UsageListQuery, UsagePage, UsageRecordDetails } from './dto/usage.dto';
import { DEFAULT_DAILY_DAYS, DEFAULT_USAGE_DAYS, lastDays, UsageService } from './usage.service';

/** SPEC.md usage routes: records, one record, the daily breakdown and the CSV export. */
@AdminController('usage', 'usage')
export class UsageController {
  constructor(
    private readonly usage: UsageService,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  @Get()
  @AdminRoute(
    'admin:read',
    'Usage records, newest first (paginated)',
    '`days` 1–90 (default 7), `limit` 1–1000 (default 100); `offset`, or `cursor` = the previous page’s `next_cursor`. 400 outside the bounds.',
  )
  @ApiOkResponse({ type: UsagePage })
  list(@CurrentPrincipal() principal: Principal, @Query() query: UsageListQuery): Promise<UsagePage> {
    return this.usage.list(principal, query);
  }

  @Get('daily')
  @AdminRoute('admin:read', 'Daily cost breakdown', '`days` 1–90 (default 30): UTC calendar days, today included, zero-filled.')
  @ApiOkResponse({ type: DailyUsageReport })
  daily(@CurrentPrincipal() principal: Principal, @Query() query: UsageDaysQuery): Promise<DailyUsageReport> {
    return this.usage.daily(principal, query.days ?? DEFAULT_DAILY_DAYS);
  }

  @Get('export')
  @AdminRoute('billing:read', 'Usage records as CSV (streamed download)', '`days` 1–90 (default 7). Columns are the fields of `GET /usage` items; RFC 4180 quoting.')
  @ApiOkResponse({ description: 'A download (`Content-Disposition: attachment`), newest record first', content: csvContent(USAGE_COLUMNS, 'usage record') })
  async export(@CurrentPrincipal() principal: Principal, @Query() query: UsageDaysQuery, @Res() reply: FastifyReply): Promise<void> {
    const range = lastDays(query.days ?? DEFAULT_USAGE_DAYS);
    const day = (date: Date) => date.toISOString().slice(0, 10);
    const rows = Readable.from(this.usage.csv(principal.orgId, range));
    // A read that fails once the download has started cannot become an error response: the
    // connection is destroyed so the client sees a broken download, never a clean, truncated 200.
    // (Before the first byte, Fastify answers the error in the surface's format.)
    rows.once('error', (error) => {
      this.logger.error({ org_id: principal.orgId, err: error.message }, 'usage CSV export failed while streaming');
      if (reply.raw.headersSent) reply.raw.destroy(error);
    });
    await reply
      .header('Content-Type', 'text/csv; charset=utf-8')
      .header('Content-Disposition', attachment(`usage-${principal.orgId}-${day(range.from)}-to-${day(range.to)}.csv`))
      .header('Cache-Control', 'no-store')
      .send(rows);
  }

  @Get(':request_id')
  @AdminRoute('admin:read', 'One usage record with its replay data', '404 `not_found` (param `request_id`) for an unknown id or another organization’s.')
  @ApiOkResponse({ type: UsageRecordDetails })
  get(@CurrentPrincipal() principal: Principal, @Param('request_id') requestId: string, @Query() _query: AdminQuery): Promise<UsageRecordDetails> {
    return this.usage.get(principal, requestId);
  }
}
