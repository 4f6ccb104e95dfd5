import { Body, CanActivate, Controller, HttpCode, Inject, Injectable, Post, Req, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { clientIp } from '@svc/auth';
import { APP_CONFIG, AppConfig } from '@svc/platform';
import type { FastifyRequest } from 'fastify';
import { OrgRoute } from '../common/org-access';
import { orgErrors } from '../common/org-errors';
import { AuthService } from './auth.service';
import { LoginDto, LogoutDto, RefreshDto, RegisterDto, TokenResponseDto } from './dto/auth.dto';
import { OrgAuthGuard } from './org-auth.guard';
import { Caller, OrgPrincipal } from './org-principal';

/**
 * Sign-up off (the default): `POST /api/v1/auth/register` answers 404 like an unknown route, before
 * the body is validated (guards run before pipes), so the route does not reveal itself.
 */
@Injectable()
export class SignupEnabledGuard implements CanActivate {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  canActivate(): boolean {
    if (!this.config.SIGNUP_ENABLED) throw orgErrors.notFound('Route POST /api/v1/auth/register');
    return true;
  }
}

@ApiTags('auth')
@Controller('api/v1/auth')
@UseGuards(OrgAuthGuard)
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post('login')
  @HttpCode(200)
  @OrgRoute({
    summary: 'Log in with e-mail and password',
    level: 'public',
    description:
      'Returns a 30-minute access token and a 7-day refresh token. Unknown e-mail and wrong password get the same 401. ' +
      'After 5 failed attempts for one e-mail from one address (an IPv6 client: its /64) within 15 minutes, logins for that pair answer 429 ' +
      '`RATE_LIMIT_EXCEEDED` with `details.retry_after` (seconds) until the window ends.',
  })
  @ApiOkResponse({ type: TokenResponseDto })
  login(@Body() body: LoginDto, @Req() request: FastifyRequest): Promise<TokenResponseDto> {
    const ip = clientIp(request.socket.remoteAddress ?? request.ip, request.headers['x-forwarded-for'], this.config.TRUSTED_PROXIES);
    return this.auth.login(body.email, body.password, ip);
  }

  @Post('refresh')
  @HttpCode(200)
  @OrgRoute({
    summary: 'Exchange a refresh token for new tokens',
    level: 'public',
    description:
      'Refresh tokens rotate: the presented token is used up and a new `refresh_token` is returned with the access token. ' +
      'Presenting a used or revoked refresh token again revokes every token of that login (401).',
  })
  @ApiOkResponse({ type: TokenResponseDto })
  refresh(@Body() body: RefreshDto): Promise<TokenResponseDto> {
    return this.auth.refresh(body.refresh_token);
  }

  @Post('logout')
  @HttpCode(204)
  @OrgRoute({
    summary: 'Log out: revoke the access token and the refresh token',
    level: 'user',
    description: "Revokes the bearer access token at once and the refresh token's whole family. Always 204 for a valid access token.",
  })
  @ApiNoContentResponse()
  async logout(@Caller() caller: OrgPrincipal, @Body() body: LogoutDto): Promise<void> {
    await this.auth.logout(caller, body.refresh_token);
  }

  @Post('register')
  @HttpCode(201)
  @OrgRoute({
    summary: 'Create an organization and its Owner (when SIGNUP_ENABLED=true)',
    level: 'public',
    description: 'The new organization is on the `free` plan, `active`. Answers like login. 404 unless `SIGNUP_ENABLED=true`; 409 `resource_already_exists` for a taken e-mail.',
  })
  @ApiCreatedResponse({ type: TokenResponseDto })
  @UseGuards(SignupEnabledGuard)
  register(@Body() body: RegisterDto): Promise<TokenResponseDto> {
    return this.auth.register(body);
  }
}
