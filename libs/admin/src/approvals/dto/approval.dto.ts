import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';

export class RejectApprovalDto {
  @ApiPropertyOptional({ description: 'required: why the request is rejected (at most 1000 characters)' })
  @IsOptional()
  @IsString()
  reason?: string;
}
