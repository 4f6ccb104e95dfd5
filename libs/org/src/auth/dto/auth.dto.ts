import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { CreateBody, IsDisplayName, IsOptionalNonNull } from '@svc/platform';
import { IsEmailAddress } from '../../common/email';

export class LoginDto {
  @ApiProperty({ example: 'admin@example.com' })
  @IsString()
  @MaxLength(320)
  email!: string;

  @ApiProperty({ example: '<password>' })
  @IsString()
  @MaxLength(1024)
  password!: string;
}

export class RefreshDto {
  @ApiProperty({ description: 'The refresh token from login or the previous refresh' })
  @IsString()
  @MaxLength(4096)
  refresh_token!: string;
}

export class LogoutDto {
  @ApiPropertyOptional({ description: "The session's refresh token; its whole family is revoked" })
  @IsOptional()
  @IsString()
  @MaxLength(4096)
  refresh_token?: string;
}

@CreateBody()
export class RegisterDto {
  @ApiProperty({ example: 'founder@example.com' })
  @IsEmailAddress()
  @MaxLength(320)
  email!: string;

  @ApiProperty({ minLength: 12, maxLength: 256 })
  @IsString()
  @MinLength(12)
  @MaxLength(256)
  password!: string;

  @ApiProperty({ minLength: 1, maxLength: 120, example: 'Acme' })
  @IsString()
  @MinLength(1)
  @MaxLength(120)
  @IsDisplayName()
  org_name!: string;

  @ApiPropertyOptional({ maxLength: 120 })
  @IsOptionalNonNull()
  @IsString()
  @MaxLength(120)
  @IsDisplayName()
  name?: string;
}

export class TokenResponseDto {
  @ApiProperty()
  access_token!: string;

  @ApiProperty({ description: 'Rotates on every refresh; present it once' })
  refresh_token!: string;

  @ApiProperty({ example: 'bearer' })
  token_type!: 'bearer';

  @ApiProperty({ example: 1800 })
  expires_in!: number;
}
