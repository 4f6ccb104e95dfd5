import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put, Query, UseGuards } from '@nestjs/common';
import { ApiAcceptedResponse, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApiCollectionResponse, NoBody } from '@svc/platform';
import {
  ChatIntegrationDto,
  CreateWebhookDto,
  DeliveryDto,
  QueuedDelivery,
  QueuedDeliveryDto,
  TestDeliveryDto,
  UpdateWebhookDto,
  WebhookDeliveryDto,
  WebhookDto,
  WebhooksService,
} from '@svc/org-resources';
import { OrgAuthGuard } from '../auth/org-auth.guard';
import { Caller, OrgPrincipal } from '../auth/org-principal';
import { OrgRoute } from '../common/org-access';
import { NoQueryDto } from '../common/no-query';
import { Collection, PageQueryDto, pageOf } from '../common/pagination';
import { ChatIntegrationService, ChatIntegrationView } from './chat-integration.service';
import { ChatIntegrationViewDto } from './dto/chat-integration-view.dto';

const READ = ['webhooks:read', 'admin:read'];
const WRITE = ['webhooks:write', 'admin:write'];
const UPDATE_TEXT =
  'Only the fields sent change (PUT and PATCH alike). `status: active` re-enables a disabled webhook and resets its failure count; ' +
  'on a webhook that is already active it changes nothing (the failure count stays).';

@ApiTags('webhooks')
@Controller('api/v1/admin/webhooks')
@UseGuards(OrgAuthGuard)
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @HttpCode(201)
  @OrgRoute({
    summary: 'Register a webhook',
    level: 'admin',
    scopes: WRITE,
    description:
      'The URL must be https:// (unless WEBHOOK_ALLOW_HTTP=true) and resolve only to public addresses (unless ' +
      'OUTBOUND_ALLOW_PRIVATE_NETWORKS=true): 400 `URL_NOT_ALLOWED` otherwise. `secret` is write-only and stored encrypted; ' +
      'without one a secret is generated and returned once, as `secret`, in this response. A second webhook for the same URL: 409 `webhook_endpoint_duplicate`. ' +
      'At most WEBHOOK_MAX_PER_ORG (default 100) webhooks per organization, disabled ones included: 409 `WEBHOOK_LIMIT_REACHED` (`details.limit`) past it.',
  })
  @ApiCreatedResponse({ type: WebhookDto })
  create(@Caller() caller: OrgPrincipal, @Body() body: CreateWebhookDto, @Query() _query: NoQueryDto): Promise<WebhookDto> {
    return this.webhooks.create(caller.orgId, body);
  }

  @Get()
  @OrgRoute({ summary: 'List webhooks', level: 'read', scopes: READ })
  @ApiCollectionResponse(WebhookDto, 'Secrets are never returned')
  list(@Caller() caller: OrgPrincipal, @Query() query: PageQueryDto): Promise<Collection<WebhookDto>> {
    return this.webhooks.list(caller.orgId, pageOf(query));
  }

  @Get(':id')
  @OrgRoute({ summary: 'One webhook', level: 'read', scopes: READ })
  @ApiOkResponse({ type: WebhookDto })
  get(@Caller() caller: OrgPrincipal, @Param('id') id: string, @Query() _query: NoQueryDto): Promise<WebhookDto> {
    return this.webhooks.get(caller.orgId, id);
  }

  @Put(':id')
  @OrgRoute({ summary: 'Update a webhook (partial)', level: 'admin', scopes: WRITE, description: UPDATE_TEXT })
  @ApiOkResponse({ type: WebhookDto })
  put(@Caller() caller: OrgPrincipal, @Param('id') id: string, @Body() body: UpdateWebhookDto, @Query() _query: NoQueryDto): Promise<WebhookDto> {
    return this.webhooks.update(caller.orgId, id, body);
  }

  @Patch(':id')
  @OrgRoute({ summary: 'Update a webhook (partial)', level: 'admin', scopes: WRITE, description: UPDATE_TEXT })
  @ApiOkResponse({ type: WebhookDto })
  patch(@Caller() caller: OrgPrincipal, @Param('id') id: string, @Body() body: UpdateWebhookDto, @Query() _query: NoQueryDto): Promise<WebhookDto> {
    return this.webhooks.update(caller.orgId, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @OrgRoute({ summary: 'Delete a webhook and its delivery history', level: 'admin', scopes: WRITE })
  @ApiNoContentResponse()
  async remove(@Caller() caller: OrgPrincipal, @Param('id') id: string, @Query() _query: NoQueryDto): Promise<void> {
    await this.webhooks.remove(caller.orgId, id);
  }

  @Get(':id/deliveries')
  @OrgRoute({ summary: 'Delivery attempts of a webhook, newest first', level: 'read', scopes: READ })
  @ApiCollectionResponse(WebhookDeliveryDto, 'Newest first, with status code, latency and retry count')
  deliveries(@Caller() caller: OrgPrincipal, @Param('id') id: string, @Query() query: PageQueryDto): Promise<Collection<DeliveryDto>> {
    return this.webhooks.deliveries(caller.orgId, id, pageOf(query));
  }

  @Post(':id/deliveries/:delivery_id/retry')
  @HttpCode(202)
  @OrgRoute({
    summary: 'Retry a dead-lettered delivery',
    level: 'operate',
    scopes: WRITE,
    description:
      'Puts the stored event back on the delivery queue with a fresh retry schedule. 409 when the delivery is not a dead letter or the webhook is disabled. ' +
      '503 `SERVICE_UNAVAILABLE` when the queue does not take the job within 2 s (it stays a dead letter). ' +
      'Takes no body (none, or `{}`): any field is 400 `VALIDATION_ERROR` naming it.',
  })
  @ApiAcceptedResponse({ type: QueuedDeliveryDto, description: 'Queued again, with `delivery_id`' })
  retry(@Caller() caller: OrgPrincipal, @Param('id') id: string, @Param('delivery_id') deliveryId: string, @NoBody() _body: undefined, @Query() _query: NoQueryDto): Promise<QueuedDelivery> {
    return this.webhooks.retryDeadLetter(caller.orgId, id, deliveryId);
  }
}

@ApiTags('webhooks')
@Controller('api/v1/webhooks')
@UseGuards(OrgAuthGuard)
export class WebhookTestController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post('deliver')
  @HttpCode(202)
  @OrgRoute({
    summary: 'Send a test delivery to a registered webhook',
    level: 'operate',
    scopes: WRITE,
    description:
      'Authenticate with `X-API-Key` (a bearer access token works too). Enqueues one signed test event for the webhook named by ' +
      '`webhook_id` (or by its registered `url`); only registered webhooks of the caller\'s organization can be targeted. ' +
      'The event `data` is `payload`, or a sample marked `test: true`. A disabled webhook: 409 `WEBHOOK_DISABLED` (re-enable it first). ' +
      '503 `SERVICE_UNAVAILABLE` when the queue does not take the job within 2 s.',
  })
  @ApiAcceptedResponse({ type: QueuedDeliveryDto, description: 'Queued (no `delivery_id`)' })
  deliver(@Caller() caller: OrgPrincipal, @Body() body: TestDeliveryDto, @Query() _query: NoQueryDto): Promise<QueuedDelivery> {
    return this.webhooks.testDelivery(caller.orgId, body);
  }
}

@ApiTags('integrations')
@Controller('api/v1/admin/integrations/chat')
@UseGuards(OrgAuthGuard)
export class ChatIntegrationController {
  constructor(private readonly chat: ChatIntegrationService) {}

  @Put()
  @OrgRoute({
    summary: 'Set the team-chat integration',
    level: 'admin',
    scopes: WRITE,
    description: 'A Slack-compatible incoming-webhook URL, same outbound rules as webhooks; stored encrypted, shown only as `url_hint`. Replaces any previous one.',
  })
  @ApiOkResponse({ type: ChatIntegrationViewDto, description: 'The integration' })
  put(@Caller() caller: OrgPrincipal, @Body() body: ChatIntegrationDto, @Query() _query: NoQueryDto): Promise<ChatIntegrationView> {
    return this.chat.put(caller.orgId, body);
  }

  @Get()
  @OrgRoute({ summary: 'The team-chat integration', level: 'read', scopes: READ })
  @ApiOkResponse({ type: ChatIntegrationViewDto, description: 'The integration; 404 when none is set' })
  get(@Caller() caller: OrgPrincipal, @Query() _query: NoQueryDto): Promise<ChatIntegrationView> {
    return this.chat.get(caller.orgId);
  }

  @Delete()
  @HttpCode(204)
  @OrgRoute({ summary: 'Remove the team-chat integration', level: 'admin', scopes: WRITE })
  @ApiNoContentResponse()
  async remove(@Caller() caller: OrgPrincipal, @Query() _query: NoQueryDto): Promise<void> {
    await this.chat.remove(caller.orgId);
  }
}
