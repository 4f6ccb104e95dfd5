import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { AutopilotTemplate } from '../templates';

export class TemplateBudgetAlertDto {
  @ApiProperty({ description: 'Percent of the limit' }) threshold!: number;
  @ApiProperty({ type: [String], example: ['webhook', 'slack'] }) channels!: string[];
}

/** A named budget of a template, in the body `POST /api/v1/admin/costs/budgets` takes. */
export class TemplateBudgetDto {
  @ApiProperty() name!: string;
  @ApiProperty({ enum: ['daily', 'weekly', 'monthly'] }) type!: 'daily' | 'weekly' | 'monthly';
  @ApiProperty({ description: 'USD' }) limit!: number;
  @ApiProperty({ type: [TemplateBudgetAlertDto] }) alerts!: TemplateBudgetAlertDto[];
  @ApiPropertyOptional() auto_stop?: boolean;
}

/** An autopilot template (AutopilotTemplate). */
export class AutopilotTemplateDto implements AutopilotTemplate {
  @ApiProperty({ example: 'cost-guardrails' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: ['cost', 'security', 'compliance', 'operations'] }) category!: AutopilotTemplate['category'];
  @ApiProperty() description!: string;
  @ApiProperty() recommended_for!: string;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'Gateway policy fields, for `POST /gateway/admin/policies`' }) policy!: Record<string, unknown>;
  @ApiProperty({ type: [TemplateBudgetDto] }) budgets!: TemplateBudgetDto[];
  @ApiProperty({ type: [String], description: 'Event types worth subscribing a webhook to' }) events!: string[];
}
