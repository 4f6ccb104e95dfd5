import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsIn, IsObject, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { EVENT_TYPES } from '@svc/events';
import { CreateBody, IsFreeText, IsOptionalNonNull } from '@svc/platform';

const EVENTS_DESCRIPTION = `Catalog event types (${EVENT_TYPES.join(', ')}); the aliases cost.exceeded and approval.required are accepted and stored as budget.exceeded and approval.requested`;

@CreateBody()
export class CreateWebhookDto {
  @ApiProperty({ example: 'https://hooks.example.com/svc', description: 'https:// (http:// only with WEBHOOK_ALLOW_HTTP=true); must resolve to a public address' })
  @IsString()
  @MaxLength(2048)
  url!: string;

  @ApiProperty({ type: [String], example: ['budget.exceeded', 'guardrail.triggered'], description: EVENTS_DESCRIPTION })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @IsString({ each: true })
  events!: string[];

  @ApiPropertyOptional({ minLength: 16, maxLength: 256, writeOnly: true, description: 'Signing secret (write-only). Omit it and one is generated and returned once.' })
  @IsOptionalNonNull()
  @IsString()
  @MinLength(16)
  @MaxLength(256)
  secret?: string;

  @ApiPropertyOptional({ maxLength: 500, nullable: true, description: 'null is no description, as when left out' })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  @IsFreeText()
  description?: string | null;
}

export class UpdateWebhookDto {
  @ApiPropertyOptional({ description: 'New receiver URL (same rules as on create)' })
  @IsOptionalNonNull()
  @IsString()
  @MaxLength(2048)
  url?: string;

  @ApiPropertyOptional({ type: [String], description: EVENTS_DESCRIPTION })
  @IsOptionalNonNull()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @IsString({ each: true })
  events?: string[];

  @ApiPropertyOptional({ enum: ['active', 'disabled'], description: '`active` re-enables a disabled webhook and resets its failure count' })
  @IsOptionalNonNull()
  @IsIn(['active', 'disabled'])
  status?: 'active' | 'disabled';

  @ApiPropertyOptional({ minLength: 16, maxLength: 256, writeOnly: true, description: 'Replaces the signing secret' })
  @IsOptionalNonNull()
  @IsString()
  @MinLength(16)
  @MaxLength(256)
  secret?: string;

  @ApiPropertyOptional({ maxLength: 500, nullable: true, description: 'null clears it' })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  @IsFreeText()
  description?: string | null;
}

@CreateBody()
export class TestDeliveryDto {
  @ApiPropertyOptional({ description: 'The webhook to deliver to (or give its `url`)' })
  @IsOptionalNonNull()
  @IsString()
  @MaxLength(100)
  webhook_id?: string;

  @ApiPropertyOptional({ description: "A registered webhook's URL, when `webhook_id` is not given" })
  @IsOptionalNonNull()
  @IsString()
  @MaxLength(2048)
  url?: string;

  @ApiPropertyOptional({ description: 'The event `data` to send; a sample marked `test: true` by default' })
  @IsOptionalNonNull()
  @IsObject()
  payload?: Record<string, unknown>;

  @ApiPropertyOptional({ description: "Event type of the test event; default: the webhook's first subscribed type" })
  @IsOptionalNonNull()
  @IsString()
  @MaxLength(100)
  event_type?: string;
}

/** Body of the team-chat PUT, which replaces the whole integration: a create, fields left out take their default. */
@CreateBody()
export class ChatIntegrationDto {
  @ApiProperty({ example: 'https://hooks.slack.com/services/T000/B000/XXXX', description: 'Slack-compatible incoming-webhook URL (same outbound rules as webhooks)' })
  @IsString()
  @MaxLength(2048)
  url!: string;

  @ApiPropertyOptional({ type: [String], description: 'Event types to post; empty or absent = every event' })
  @IsOptionalNonNull()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  events?: string[];

  @ApiPropertyOptional({ default: true })
  @IsOptionalNonNull()
  @IsBoolean()
  enabled?: boolean;
}

export class WebhookDto {
  @ApiProperty({ example: 'whk_...' }) id!: string;
  @ApiProperty() url!: string;
  @ApiProperty({ type: [String] }) events!: string[];
  @ApiProperty({ enum: ['active', 'disabled'] }) status!: string;
  @ApiProperty() created_at!: string;
  @ApiProperty() updated_at!: string;
  @ApiProperty({ nullable: true, type: String }) description!: string | null;
  @ApiProperty() consecutive_failures!: number;
  @ApiProperty({ nullable: true, type: String }) disabled_reason!: string | null;
  @ApiProperty({ nullable: true, type: String }) last_delivery_at!: string | null;
  @ApiPropertyOptional({ description: 'Only on create, and only when the secret was generated' }) secret?: string;
}

/** One delivery attempt record of a webhook (`GET /api/v1/admin/webhooks/{id}/deliveries`). */
export class WebhookDeliveryDto {
  @ApiProperty({ example: 'dlv_...' }) id!: string;
  @ApiProperty() webhook_id!: string;
  @ApiProperty({ example: 'evt_...' }) event_id!: string;
  @ApiProperty({ example: 'budget.exceeded' }) event_type!: string;
  @ApiProperty({ enum: ['pending', 'succeeded', 'failed', 'dead_letter'] }) status!: string;
  @ApiProperty({ nullable: true, type: Number, description: 'HTTP status of the last attempt; null when it got no response' }) status_code!: number | null;
  @ApiProperty({ nullable: true, type: Number }) latency_ms!: number | null;
  @ApiProperty({ description: 'Retries made after the first attempt' }) retry_count!: number;
  @ApiProperty({ nullable: true, type: String }) error!: string | null;
  @ApiProperty() dead_letter!: boolean;
  @ApiProperty() created_at!: string;
  @ApiProperty({ nullable: true, type: String }) last_attempt_at!: string | null;
  @ApiProperty({ nullable: true, type: String }) next_attempt_at!: string | null;
  @ApiProperty({ nullable: true, type: String }) delivered_at!: string | null;
}

/** 202 of a test delivery or a dead-letter retry: the event is on the delivery queue. */
export class QueuedDeliveryDto {
  @ApiProperty({ enum: ['queued'] }) status!: 'queued';
  @ApiProperty() webhook_id!: string;
  @ApiProperty({ example: 'evt_...' }) event_id!: string;
  @ApiProperty() event_type!: string;
  @ApiProperty() job_id!: string;
  @ApiPropertyOptional({ description: 'Only on a dead-letter retry: the delivery put back on the queue' }) delivery_id?: string;
}
