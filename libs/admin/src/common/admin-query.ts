import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { QueryInt } from '@svc/platform';

/** Every query may carry the gateway key as `api_key` (SPEC.md: the fallback for clients without headers). */
export class AdminQuery {
  @ApiPropertyOptional({ description: 'gateway key, for clients that cannot send headers' })
  @IsOptional()
  @IsString()
  api_key?: string;
}

/** `offset` / `limit` paging of admin lists (limit 1–1000; offset a safe integer, as a database's skip takes). */
export class PageQuery extends AdminQuery {
  @ApiPropertyOptional({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 })
  @IsOptional()
  @QueryInt()
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  offset?: number;

  @ApiPropertyOptional({ minimum: 1, maximum: 1000, default: 20 })
  @IsOptional()
  @QueryInt()
  @IsInt()
  @Min(1)
  @Max(1000)
  limit?: number;
}

/** A page of an admin list. */
export interface AdminPage<T> {
  items: T[];
  total: number;
  offset: number;
  limit: number;
}

export const iso = (date: Date | null | undefined): string | null => (date ? date.toISOString() : null);
