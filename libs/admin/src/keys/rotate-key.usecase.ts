import { Inject, Injectable } from '@nestjs/common';
import { hasScope, Principal } from '@svc/auth';
import { ApiKeyEntity, apiKeyExpired, boundByCallerExpiry, generateApiKey, hashApiKey, keyDisplayPrefix, keyLastFour, Repositories, requestedExpiry } from '@svc/domain';
import { iso } from '../common/admin-query';
import { ConflictError, GatewayError, InvalidationBus, notFound } from '@svc/platform';
import { INVALIDATION_BUS, REPOSITORIES } from '@svc/runtime';
import { RotatedKeyResponse } from './dto/rotate-key.dto';

/**
 * A caller may only obtain the plaintext of a key it could have been given itself: a gateway key
 * needs every scope of the key it rotates (a write scope covers its read scope, as in the guard);
 * a dashboard user with the Owner or Admin role may rotate any key of the organization.
 */
export function mayRotate(principal: Pick<Principal, 'kind' | 'role' | 'scopes'>, key: Pick<ApiKeyEntity, 'scopes'>): string[] {
  if (principal.kind === 'dashboard' && (principal.role === 'Owner' || principal.role === 'Admin')) return [];
  return key.scopes.filter((scope) => !hasScope(principal.scopes, scope));
}

/**
 * Replaces a current gateway key by a new one with the same name, scopes, allowlist and team
 * (DECISIONS.md: the old key keeps working for `hours`, 0 = stops at once, never past its own
 * `expires_at`). The replacement keeps the old key's `expires_at` unless `expiresAt` is given (null =
 * never): rotating replaces the secret, not the lifetime the key was issued with. A calling key that
 * expires bounds the replacement's expiry by its own (absent: capped; null or later: 403). Moves the key's budget
 * nodes to the replacement, then drops the old key from every replica's authentication cache and
 * the governance profiles (stage 2.5 reads the nodes from them).
 */
@Injectable()
export class RotateKeyUseCase {
  constructor(
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    @Inject(INVALIDATION_BUS) private readonly invalidation: InvalidationBus,
  ) {}

  async execute(principal: Principal, keyId: string, hours: number, expiresAt?: string | null): Promise<RotatedKeyResponse> {
    const orgId = principal.orgId;
    const key = await this.repositories.apiKeys.findById(orgId, keyId);
    if (!key) throw notFound('API key', 'key_id');
    if (key.status !== 'active') throw new ConflictError('invalid_state', `API key ${key._id} is revoked and cannot be rotated.`, { key_id: key._id, status: key.status });
    if (key.replaced_by) {
      throw new ConflictError('key_already_rotated', `API key ${key._id} was already rotated; rotate its replacement ${key.replaced_by} instead.`, {
        key_id: key._id,
        replaced_by: key.replaced_by,
      });
    }
    const now = new Date();
    // An expired key is dead like a revoked one: rotating it must not bring it back.
    if (apiKeyExpired(key, now)) {
      throw new ConflictError('invalid_state', `API key ${key._id} expired at ${key.expires_at?.toISOString()} and cannot be rotated; create a new key.`, {
        key_id: key._id,
        expires_at: key.expires_at?.toISOString() ?? null,
      });
    }
    const missing = mayRotate(principal, key);
    if (missing.length) {
      throw new GatewayError(403, {
        message: `API key ${key._id} carries scopes the caller does not have (${missing.join(', ')}); its plaintext cannot be obtained by rotating it`,
        type: 'permission_error',
        code: 'insufficient_scope',
        param: 'key_id',
        remediation: 'Rotate it with a key that carries all of its scopes, or as an Owner or Admin of the organization in the dashboard.',
      });
    }
    // The replacement (inherited or given expiry) cannot outlive a calling key that expires itself.
    const requested = requestedExpiry(expiresAt);
    const lifetime = boundByCallerExpiry(requested, key.expires_at ?? null, principal.kind === 'api_key' ? principal.keyExpiresAt : null);
    if (lifetime.refused !== undefined) {
      throw new GatewayError(403, {
        message: lifetime.refused,
        type: 'permission_error',
        code: 'insufficient_lifetime',
        param: 'expires_at',
        remediation: `Give an expires_at at or before ${principal.keyExpiresAt?.toISOString()}, or rotate with a key that lives long enough or as an Owner or Admin in the dashboard.`,
      });
    }
    const graceUntil = new Date(now.getTime() + Math.round(hours * 3_600_000));
    const plaintext = generateApiKey();
    const rotated = await this.repositories.apiKeys.rotate(
      orgId,
      key._id,
      {
        key_hash: hashApiKey(plaintext),
        key_prefix: keyDisplayPrefix(plaintext),
        last_four: keyLastFour(plaintext),
        expires_at: lifetime.expiresAt,
      },
      graceUntil,
      now,
    );
    if (!rotated) throw new ConflictError('key_already_rotated', `API key ${key._id} changed while it was being rotated; read it again.`, { key_id: key._id });
    await this.invalidation.publish('api-key', key.key_hash);
    const current = rotated.current;
    if ((await this.repositories.budgetNodes.moveKeyNodes(orgId, key._id, current._id, now)) > 0) await this.invalidation.publish('policy', orgId);
    return {
      id: current._id,
      name: current.name,
      key: plaintext,
      key_prefix: current.key_prefix,
      last_four: current.last_four,
      scopes: current.scopes,
      created_at: current.created_at.toISOString(),
      expires_at: iso(current.expires_at),
      previous_key_id: key._id,
      grace_period_hours: hours,
      previous_key_expires_at: (rotated.previous.grace_until ?? graceUntil).toISOString(),
    };
  }
}
