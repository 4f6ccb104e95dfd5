import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsQueryInt } from './query-int';

/** The collection shape is shared with the gateway admin's organization routes (@svc/org-resources). */
export { collection, type Collection } from '@svc/org-resources';

export const DEFAULT_PAGE_LIMIT = 20;
export const MAX_PAGE_LIMIT = 100;

/**
 * SPEC.md "Collections and pagination": `offset` (default 0, a safe integer) and `limit` (default 20,
 * max 100), in decimal digits; 400 otherwise, an empty value included.
 */
export class PageQueryDto {
  @ApiPropertyOptional({ default: 0, minimum: 0, description: 'Items to skip' })
  @IsQueryInt(0)
  offset?: number;

  @ApiPropertyOptional({ default: DEFAULT_PAGE_LIMIT, minimum: 1, maximum: MAX_PAGE_LIMIT, description: 'Items per page' })
  @IsQueryInt(1, MAX_PAGE_LIMIT)
  limit?: number;
}

export function pageOf(query: PageQueryDto): { offset: number; limit: number } {
  return { offset: query.offset ?? 0, limit: query.limit ?? DEFAULT_PAGE_LIMIT };
}
