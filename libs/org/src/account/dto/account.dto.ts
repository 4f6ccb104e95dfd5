import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ORG_ROLES, PLAN_TIERS, SUBSCRIPTION_STATUSES } from '@svc/domain';

export class DailyCostDto {
  @ApiProperty({ description: "USD spent today (since 00:00 UTC): the sum of the organization's usage-record `cost`", example: 1.23 }) total!: number;
  @ApiProperty({ description: "The policy's daily budget, else the tier default (USD)", example: 100 }) budget_limit!: number;
  @ApiProperty({ description: 'total / budget_limit, percent', example: 1.23 }) utilization!: number;
  @ApiProperty({ nullable: true, type: String, description: "Today's costliest agent (`unattributed` for records without one)" }) top_agent!: string | null;
  @ApiProperty({ description: "That agent's cost today (USD)" }) top_agent_cost!: number;
}

export class HealthDto {
  @ApiProperty({ enum: ['ok'] }) status!: 'ok';
  @ApiProperty() version!: string;
  @ApiProperty() uptime_seconds!: number;
  @ApiProperty() timestamp!: string;
  @ApiProperty({ type: DailyCostDto, nullable: true, description: "Null without credentials: the organization's figures are not public" })
  daily_cost!: DailyCostDto | null;
}

export class ProfileOrganizationDto {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: PLAN_TIERS }) plan!: string;
  @ApiProperty({ enum: SUBSCRIPTION_STATUSES }) subscription_status!: string;
}

/** The caller: a user (`type: user`) or an API key (`type: api_key`). */
export class ProfileDto {
  @ApiProperty({ enum: ['user', 'api_key'] }) type!: 'user' | 'api_key';
  @ApiProperty() org_id!: string;
  @ApiProperty({ type: ProfileOrganizationDto }) organization!: ProfileOrganizationDto;
  @ApiProperty({ type: [String], description: "A user's role-derived scopes, or the key's scopes" }) scopes!: string[];
  @ApiProperty({ nullable: true, type: String, description: "The user's name, or the key's name" }) name!: string | null;
  @ApiPropertyOptional({ description: 'Users: the user id' }) id?: string;
  @ApiPropertyOptional({ description: 'Users' }) email?: string;
  @ApiPropertyOptional({ enum: ORG_ROLES, description: 'Users' }) role?: string;
  @ApiPropertyOptional({ description: 'Users' }) created_at?: string;
  @ApiPropertyOptional({ nullable: true, type: String, description: 'Users' }) last_login_at?: string | null;
  @ApiPropertyOptional({ nullable: true, type: String, description: 'API keys: the key id' }) key_id?: string | null;
  @ApiPropertyOptional({ nullable: true, type: String, description: 'API keys: the team of the key' }) team_id?: string | null;
}

/** `GET /`: what this service is and where its routes are (as the gateway's `GET /`). */
export class ServiceRootDto {
  @ApiProperty({ example: 'svc-org-api' }) service!: string;
  @ApiProperty() version!: string;
  @ApiProperty({ enum: ['ok'] }) status!: 'ok';
  @ApiProperty({ example: '/docs' }) docs!: string;
  @ApiProperty({ example: '/api/v1/health' }) health!: string;
  @ApiProperty({ example: '/health' }) liveness!: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    description: 'The main routes, `METHOD path` or a path prefix',
    example: { login: 'POST /api/v1/auth/login', api_keys: '/api/v1/platform/api-keys' },
  })
  endpoints!: Record<string, string>;
}
