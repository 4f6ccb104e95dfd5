import { Get, Query, Res } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, getSchemaPath } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CurrentPrincipal, Principal } from '@svc/auth';
import { AdminController, AdminRoute } from '../common/admin-route';
import { attachment, csvContent, csvDocument } from '../common/csv';
import { BILLING_COLUMNS, BillingExport, BillingExportQuery, BillingLine, BillingQuery, BillingSummary } from './dto/billing.dto';
import { BillingService, monthRange } from './billing.service';
import { exactMicros, fromMicros } from './micros';

/** SPEC.md billing routes: the monthly summary and its export. */
@AdminController('billing', 'billing')
export class BillingController {
  constructor(private readonly billing: BillingService) {}

  @Get('summary')
  @AdminRoute('billing:read', 'Monthly billing summary', '`month` `YYYY-MM` (UTC, default the current month): totals by provider, model, key and agent, summed from the usage records.')
  @ApiOkResponse({ type: BillingSummary })
  summary(@CurrentPrincipal() principal: Principal, @Query() query: BillingQuery): Promise<BillingSummary> {
    return this.billing.summary(principal, query.month);
  }

  @Get('export')
  @AdminRoute('billing:read', 'Monthly billing export, JSON or CSV', '`month` `YYYY-MM`, `format` `json` (default) or `csv`: one line per provider, model, key and agent.')
  @ApiExtraModels(BillingExport)
  @ApiOkResponse({
    description: 'A download (`Content-Disposition: attachment`): JSON by default, CSV with `format=csv`',
    content: { 'application/json': { schema: { $ref: getSchemaPath(BillingExport) } }, ...csvContent(BILLING_COLUMNS, 'provider, model, key and agent') },
  })
  async export(@CurrentPrincipal() principal: Principal, @Query() query: BillingExportQuery, @Res() reply: FastifyReply): Promise<void> {
    const range = monthRange(query.month);
    const lines = await this.billing.lines(principal.orgId, range);
    if (query.format === 'csv') {
      await reply
        .header('Content-Type', 'text/csv; charset=utf-8')
        .header('Content-Disposition', attachment(`billing-${principal.orgId}-${range.month}.csv`))
        .send(csvDocument<BillingLine>(BILLING_COLUMNS, lines));
      return;
    }
    // The lines are whole micro-dollars (allocateMicros): their sum is the month's total.
    const total = fromMicros(lines.reduce((micros, line) => micros + Math.round(exactMicros(line.cost)), 0));
    const body: BillingExport = { month: range.month, from: range.from.toISOString(), to: range.to.toISOString(), currency: 'USD', total_cost: total, lines };
    await reply.header('Content-Disposition', attachment(`billing-${principal.orgId}-${range.month}.json`)).send(body);
  }
}
