import { Body, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOkResponse } from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '@svc/auth';
import { AdminController, AdminRoute } from '../common/admin-route';
import { DEFAULT_GRACE_HOURS, RotatedKeyResponse, RotateKeyDto, RotateKeyQuery } from './dto/rotate-key.dto';
import { RotateKeyUseCase } from './rotate-key.usecase';

/** Gateway key rotation with the DECISIONS.md grace period. */
@AdminController('keys', 'keys')
export class KeysController {
  constructor(private readonly rotateKey: RotateKeyUseCase) {}

  @Post(':key_id/rotate')
  @HttpCode(200)
  @AdminRoute(
    'admin:write',
    'Rotate a gateway key; the new plaintext key is returned once',
    'Optional `grace_period_hours` (0–168, default 24, fractions allowed; a JSON number in the body, or plain decimal notation in the query such as `1.5`): ' +
      'the old key keeps working with `X-SVC-Key-Deprecated` until then (never past its own ' +
      '`expires_at`), 0 stops it at once. Optional `expires_at` (body): when the replacement expires, null = never; absent, it keeps the old key\'s. ' +
      'A calling key that expires bounds it by its own: absent is capped at it, null or later is 403 `insufficient_lifetime`. ' +
      '409 for a revoked, expired or already rotated key.',
  )
  @ApiOkResponse({ type: RotatedKeyResponse })
  rotate(@CurrentPrincipal() principal: Principal, @Param('key_id') keyId: string, @Body() body: RotateKeyDto, @Query() query: RotateKeyQuery): Promise<RotatedKeyResponse> {
    return this.rotateKey.execute(principal, keyId, body.grace_period_hours ?? query.grace_period_hours ?? DEFAULT_GRACE_HOURS, body.expires_at);
  }
}
