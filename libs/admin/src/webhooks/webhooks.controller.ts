import { Body, Get, Param, Patch, Put, Query } from '@nestjs/common';
import { ApiOkResponse } from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '@svc/auth';
import { ApiCollectionResponse } from '@svc/platform';
import { UpdateWebhookDto, WebhookDto, WebhooksService } from '@svc/org-resources';
import { AdminPage, AdminQuery, PageQuery } from '../common/admin-query';
import { AdminControllerAt, AdminRoute } from '../common/admin-route';

const UPDATE_TEXT =
  'Only the fields sent change (PUT and PATCH alike, DECISIONS.md): `url`, `events`, `status`, `secret`, `description` as on ' +
  '`PATCH /api/v1/admin/webhooks/{id}`. The URL follows the same outbound rules (400 `url_not_allowed`); a URL another webhook of ' +
  'the organization has: 409 `webhook_endpoint_duplicate` with `conflicting_id`. 404 `not_found` (`param` `id`) for an id the organization does not own.';

/**
 * SPEC.md's conflict examples `/v1/admin/webhooks` (list, update by id): the organization's webhooks
 * through the same service as `/api/v1/admin/webhooks`, in the gateway's formats. Secrets are never returned.
 */
@AdminControllerAt('v1/admin/webhooks', 'webhooks')
export class AdminWebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Get()
  @AdminRoute('admin:read', "List the organization's webhooks (never their secrets)", '`offset`, `limit` 1–1000 (default 20).')
  @ApiCollectionResponse(WebhookDto, 'Webhooks; secrets are never returned')
  list(@CurrentPrincipal() principal: Principal, @Query() query: PageQuery): Promise<AdminPage<WebhookDto>> {
    return this.webhooks.list(principal.orgId, { offset: query.offset ?? 0, limit: query.limit ?? 20 });
  }

  @Put(':id')
  @AdminRoute('admin:write', 'Update a webhook (partial)', UPDATE_TEXT)
  @ApiOkResponse({ type: WebhookDto })
  put(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Body() body: UpdateWebhookDto, @Query() _query: AdminQuery): Promise<WebhookDto> {
    return this.webhooks.update(principal.orgId, id, body);
  }

  @Patch(':id')
  @AdminRoute('admin:write', 'Update a webhook (partial)', UPDATE_TEXT)
  @ApiOkResponse({ type: WebhookDto })
  patch(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Body() body: UpdateWebhookDto, @Query() _query: AdminQuery): Promise<WebhookDto> {
    return this.webhooks.update(principal.orgId, id, body);
  }
}
