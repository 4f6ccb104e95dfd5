import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsQueryInt } from './query-int';

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

/** A collection response of the organization API. */
export interface Collection<T> {
  items: T[];
  total: number;
  offset: number;
  limit: number;
}

export function pageOf(query: PageQueryDto): { offset: number; limit: number } {
  return { offset: query.offset ?? 0, limit: query.limit ?? DEFAULT_PAGE_LIMIT };
}

/** Maps a repository page to the API's collection shape. */
export function collection<E, T>(page: { items: E[]; total: number }, request: { offset: number; limit: number }, map: (item: E) => T): Collection<T> {
  return { items: page.items.map(map), total: page.total, offset: request.offset, limit: request.limit };
}
