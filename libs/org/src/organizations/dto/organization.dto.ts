import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, MaxLength, MinLength } from 'class-validator';
import { ORG_ROLES, OrgRole, SUBSCRIPTION_STATUSES, SubscriptionStatus } from '@svc/domain';
import { CreateBody, IsDisplayName, IsOptionalNonNull } from '@svc/platform';
import { IsEmailAddress } from '../../common/email';

@CreateBody()
export class AddMemberDto {
  @ApiProperty({ example: 'ada@example.com' })
  @IsEmailAddress()
  @MaxLength(320)
  email!: string;

  @ApiProperty({ minLength: 12, maxLength: 256 })
  @IsString()
  @MinLength(12)
  @MaxLength(256)
  password!: string;

  @ApiProperty({ enum: ORG_ROLES, example: 'Member' })
  @IsIn(ORG_ROLES)
  role!: OrgRole;

  @ApiPropertyOptional({ maxLength: 120 })
  @IsOptionalNonNull()
  @IsString()
  @MaxLength(120)
  @IsDisplayName()
  name?: string;
}

export class UpdateOrganizationDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 120 })
  @IsOptionalNonNull()
  @IsString()
  @MinLength(1)
  @MaxLength(120)
  @IsDisplayName()
  name?: string;

  @ApiPropertyOptional({ enum: ['free', 'starter', 'growth', 'enterprise', 'pro', 'team'], description: 'Only with PLAN_ADMIN_ENABLED=true; `pro` = starter, `team` = growth' })
  @IsOptionalNonNull()
  @IsIn(['free', 'starter', 'growth', 'enterprise', 'pro', 'team'])
  plan?: string;

  @ApiPropertyOptional({ enum: SUBSCRIPTION_STATUSES, description: 'Only with PLAN_ADMIN_ENABLED=true' })
  @IsOptionalNonNull()
  @IsIn(SUBSCRIPTION_STATUSES)
  subscription_status?: SubscriptionStatus;
}

/** `GET /api/v1/organizations/{org_id}` (OrganizationView). */
export class OrganizationDto {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: ['free', 'starter', 'growth', 'enterprise'] }) plan!: string;
  @ApiProperty({ enum: SUBSCRIPTION_STATUSES }) subscription_status!: string;
  @ApiProperty() created_at!: string;
  @ApiProperty() updated_at!: string;
}

/** A member of the organization (MemberView); never the password. */
export class MemberDto {
  @ApiProperty() id!: string;
  @ApiProperty() email!: string;
  @ApiProperty({ nullable: true, type: String }) name!: string | null;
  @ApiProperty({ enum: ORG_ROLES }) role!: string;
  @ApiProperty() created_at!: string;
  @ApiProperty({ nullable: true, type: String }) last_login_at!: string | null;
}
