import { ApiProperty } from '@nestjs/swagger';

const POLICY = { type: 'object', additionalProperties: true } as const;

/** The gateway policy as `GET /gateway/admin/policies` shows it (PolicyView of @svc/governance). */
export class PolicyViewDto {
  @ApiProperty() org_id!: string;
  @ApiProperty({ enum: ['free', 'starter', 'growth', 'enterprise'], description: "The organization's plan tier" }) tier!: string;
  @ApiProperty({ ...POLICY, description: 'What the governance chain applies on the next request (overrides on top of the tier defaults)' }) effective!: Record<string, unknown>;
  @ApiProperty({ ...POLICY, description: 'Only the stored overrides' }) custom!: Record<string, unknown>;
  @ApiProperty({ ...POLICY, description: "The tier's defaults" }) tier_defaults!: Record<string, unknown>;
  @ApiProperty({ type: [String] }) overridden_fields!: string[];
  @ApiProperty({ nullable: true, type: String, description: 'The preset last applied, if the policy came from one' }) preset!: string | null;
  @ApiProperty() has_custom_policy!: boolean;
  @ApiProperty({ nullable: true, type: String }) created_at!: string | null;
  @ApiProperty({ nullable: true, type: String }) updated_at!: string | null;
}
