import { ApiPropertyOptional } from '@nestjs/swagger';
import { ABSOLUTE_MAX_BODY_BYTES } from './limits';
import { PII_ACTIONS } from './policy';
import { POLICY_LIMITS } from './policy-input';

/**
 * The body of a policy write, for the OpenAPI documents of both admin surfaces: the gateway admin's
 * `POST /gateway/admin/policies` (and `draft_policy` of its simulation) and the organization API's
 * `PATCH /api/v1/admin/gateway/policy/{org_id}`. Documentation only: the routes read the body with
 * `normalizePolicyInput` (every error at once, one `POLICY_INPUT_FIELDS` entry per property here).
 */
export class PolicyFieldsDto {
  @ApiPropertyOptional({ minimum: POLICY_LIMITS.rpm_limit.min, maximum: POLICY_LIMITS.rpm_limit.max, type: 'integer', description: 'requests per minute' })
  rpm_limit?: number;
  @ApiPropertyOptional({
    minimum: POLICY_LIMITS.rpm_limit.min,
    maximum: POLICY_LIMITS.rpm_limit.max,
    type: 'integer',
    description: 'accepted spelling of `rpm_limit` (stored as `rpm_limit`; both with different values is a 400)',
  })
  rate_limit_rpm?: number;
  @ApiPropertyOptional({ minimum: POLICY_LIMITS.money.min, maximum: POLICY_LIMITS.money.max, description: 'USD' })
  daily_budget?: number;
  @ApiPropertyOptional({ minimum: POLICY_LIMITS.money.min, maximum: POLICY_LIMITS.money.max, description: 'USD' })
  monthly_budget?: number;
  @ApiPropertyOptional({ minimum: POLICY_LIMITS.money.min, maximum: POLICY_LIMITS.money.max, description: 'USD, cap on one request estimate' })
  max_cost_per_request?: number;
  @ApiPropertyOptional()
  pii_scan_enabled?: boolean;
  @ApiPropertyOptional({ enum: PII_ACTIONS })
  pii_action?: string;
  @ApiPropertyOptional({ type: [String], maxItems: POLICY_LIMITS.list_items, description: 'empty = every model' })
  allowed_models?: string[];
  @ApiPropertyOptional({ minimum: POLICY_LIMITS.money.min, maximum: POLICY_LIMITS.money.max, description: 'USD; an estimate above it needs approval' })
  hitl_cost_threshold?: number;
  @ApiPropertyOptional({ minimum: POLICY_LIMITS.max_body_bytes.min, maximum: ABSOLUTE_MAX_BODY_BYTES, type: 'integer', description: 'request body cap in bytes, at most 200 MB' })
  max_body_bytes?: number;
  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: POLICY_LIMITS.max_reasoning_tokens.min,
    maximum: POLICY_LIMITS.max_reasoning_tokens.max,
    description: '`null` removes the cap',
  })
  max_reasoning_tokens?: number | null;
  @ApiPropertyOptional({ type: [String], maxItems: POLICY_LIMITS.list_items, description: 'empty = every skill' })
  allowed_skills?: string[];
  @ApiPropertyOptional({ type: [Number], maxItems: POLICY_LIMITS.warning_thresholds, description: 'percent, default 50, 75, 90' })
  budget_warning_thresholds?: number[];
  @ApiPropertyOptional({ description: "the caller's organization, as in the route; another answers 404" })
  org_id?: string;
}
