import { Module } from '@nestjs/common';
import { ApiKeysService } from './api-keys/api-keys.service';
import { WebhooksService } from './webhooks/webhooks.service';

/**
 * The organization's API keys and webhooks as services, shared by the organization API
 * (`/api/v1/platform/api-keys`, `/api/v1/admin/webhooks`) and the gateway admin's routes of the
 * same resources (`/v1/admin/api-keys`, `/v1/admin/webhooks`), so both surfaces run the same rules.
 * They throw the organization API's errors; the gateway admin renders them in its own format.
 * Needs RuntimeModule's shared resources and the event bus.
 */
@Module({
  providers: [ApiKeysService, WebhooksService],
  exports: [ApiKeysService, WebhooksService],
})
export class OrgResourcesModule {}
