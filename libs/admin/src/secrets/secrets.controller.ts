import { Body, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse } from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '@svc/auth';
import { AdminQuery } from '../common/admin-query';
import { AdminController, AdminRoute } from '../common/admin-route';
import { SecretList, SecretView, StoreSecretDto } from './dto/secret.dto';
import { SecretsService } from './secrets.service';

/** Stored provider keys: write-only values, metadata listings. */
@AdminController('secrets', 'secrets')
export class SecretsController {
  constructor(private readonly secrets: SecretsService) {}

  @Post()
  @AdminRoute('admin:write', 'Store a provider key (encrypted)', '`provider`, `plaintext_key` (or `secret`), optional `label`. 409 `secret_already_stored` when the provider has one.')
  @ApiCreatedResponse({ type: SecretView })
  store(@CurrentPrincipal() principal: Principal, @Body() body: StoreSecretDto, @Query() _query: AdminQuery): Promise<SecretView> {
    return this.secrets.store(principal, body);
  }

  @Get()
  @AdminRoute('admin:read', 'List stored provider keys (metadata and last four characters only)')
  @ApiOkResponse({ type: SecretList })
  list(@CurrentPrincipal() principal: Principal, @Query() _query: AdminQuery): Promise<SecretList> {
    return this.secrets.list(principal);
  }

  @Post('rotate')
  @HttpCode(200)
  @AdminRoute('admin:write', 'Replace the stored key of a provider', 'The provider goes in the body. 404 when none is stored.')
  @ApiOkResponse({ type: SecretView })
  rotate(@CurrentPrincipal() principal: Principal, @Body() body: StoreSecretDto, @Query() _query: AdminQuery): Promise<SecretView> {
    return this.secrets.rotate(principal, body);
  }

  @Delete(':provider')
  @HttpCode(204)
  @AdminRoute('admin:write', 'Revoke the stored key of a provider', 'Explicit provider keys are needed again. 404 when none is stored.')
  async remove(@CurrentPrincipal() principal: Principal, @Param('provider') provider: string, @Query() _query: AdminQuery): Promise<void> {
    await this.secrets.remove(principal, provider);
  }
}
