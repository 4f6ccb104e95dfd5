import { ApiPropertyOptional } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { IsOptional, IsString } from 'class-validator';
import { APPROVAL_STATUSES } from '@svc/domain';
import { IsFreeText } from '@svc/platform';
import { APPROVAL_STATUS_RESPONSE } from '@svc/proxy';

export class RejectApprovalDto {
  @ApiPropertyOptional({ description: 'required: why the request is rejected (at most 1000 characters)' })
  @IsOptional()
  @IsString()
  @IsFreeText()
  reason?: string;
}

const TIMESTAMP: SchemaObject = { type: 'string', format: 'date-time' };

/**
 * `ApprovalDetailsView` (@svc/governance) as OpenAPI: the approval-status fields of
 * `GET /v1/approvals/{id}/status`, then what the reviewer needs. `expires_at` is always set here.
 */
export const APPROVAL_DETAILS: SchemaObject = {
  type: 'object',
  required: [...(APPROVAL_STATUS_RESPONSE.required ?? []), 'expires_at', 'provider', 'hitl_threshold', 'request_id', 'key_id', 'request_hash', 'rejected_by', 'consumed_at', 'consumed_by', 'used_at', 'released_at', 'updated_at'],
  properties: {
    ...APPROVAL_STATUS_RESPONSE.properties,
    expires_at: { ...TIMESTAMP, description: 'When a pending approval expires (APPROVAL_TTL_HOURS after created_at)' },
    provider: { type: 'string', nullable: true },
    hitl_threshold: { type: 'number', description: 'USD: the policy threshold the estimate exceeded' },
    request_id: { type: 'string', nullable: true, description: 'The request that asked for approval' },
    key_id: { type: 'string', nullable: true, description: 'The gateway key that made the request' },
    request_hash: { type: 'string', description: 'SHA-256 of the canonical request body: the re-submission must match it' },
    rejected_by: { type: 'string', nullable: true },
    consumed_at: { ...TIMESTAMP, nullable: true, description: 'When the approved request was re-submitted and took it; null while unused or after it was given back' },
    consumed_by: { type: 'string', nullable: true, description: 'The request id (`gw_...`) of the re-submission that took it; null while unused or after it was given back' },
    used_at: {
      ...TIMESTAMP,
      nullable: true,
      description: 'When that re-submission finished and kept it (a usable provider answer): spent for good. Taken without `used_at`: in use by a request in flight',
    },
    released_at: {
      ...TIMESTAMP,
      nullable: true,
      description: 'When a re-submission that took it gave it back (no usable provider answer: 5xx, 408, 409, 429, timeout, connection error, open breaker); null if never',
    },
    updated_at: TIMESTAMP,
  },
};

/** `GET /approvals`: a page of the pending approvals. */
export const APPROVAL_PAGE: SchemaObject = {
  type: 'object',
  required: ['items', 'total', 'offset', 'limit'],
  properties: {
    items: { type: 'array', items: APPROVAL_DETAILS },
    total: { type: 'integer', description: 'Pending approvals in all' },
    offset: { type: 'integer' },
    limit: { type: 'integer' },
  },
};

/** `GET /approvals/stats`: one count per status, and their sum. */
export const APPROVAL_STATS: SchemaObject = {
  type: 'object',
  required: [...APPROVAL_STATUSES, 'total'],
  properties: Object.fromEntries([...APPROVAL_STATUSES, 'total'].map((status) => [status, { type: 'integer' }])),
};
