import { Inject, Injectable } from '@nestjs/common';
import { isValidIpEntry, normalizeScopes, Principal, unknownScopes } from '@svc/auth';
import { ApiKeyEntity, boundByCallerExpiry, requestedExpiry, DuplicateKeyError, generateApiKey, hashApiKey, keyDisplayPrefix, keyLastFour, OrgId, Repositories } from '@svc/domain';
import { ConflictError, InvalidationBus } from '@svc/platform';
import { INVALIDATION_BUS, REPOSITORIES } from '@svc/runtime';
import { keyAllows } from '../common/key-allows';
import { orgErrors } from '../common/org-errors';
import { collection, Collection } from '../common/pagination';
import type { ApiKeyDto, CreateApiKeyDto, CreatedApiKeyDto } from './dto/api-key.dto';

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export function toApiKeyDto(key: ApiKeyEntity): ApiKeyDto {
  return {
    id: key._id,
    name: key.name,
    key_prefix: key.key_prefix,
    last_four: key.last_four,
    scopes: key.scopes,
    ip_allowlist: key.ip_allowlist,
    team_id: key.team_id,
    status: key.status,
    replaced_by: key.replaced_by,
    grace_until: iso(key.grace_until),
    expires_at: iso(key.expires_at ?? null),
    created_at: key.created_at.toISOString(),
    last_used_at: iso(key.last_used_at),
    revoked_at: iso(key.revoked_at),
  };
}

@Injectable()
export class ApiKeysService {
  constructor(
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    @Inject(INVALIDATION_BUS) private readonly invalidation: InvalidationBus,
  ) {}

  async create(caller: Principal, input: CreateApiKeyDto): Promise<CreatedApiKeyDto> {
    const unknown = unknownScopes(input.scopes);
    if (unknown.length) throw orgErrors.validation(`Unknown scopes: ${unknown.join(', ')}`, 'scopes', { unknown_scopes: unknown });
    const scopes = normalizeScopes(input.scopes);
    const requested = requestedExpiry(input.expires_at);
    let expiresAt = requested ?? null;
    if (caller.kind === 'api_key') {
      const beyond = scopes.filter((scope) => !keyAllows(caller.scopes, [scope]));
      if (beyond.length) throw orgErrors.forbidden(`An API key cannot grant scopes it does not hold: ${beyond.join(', ')}`, { scopes: beyond });
      const lifetime = boundByCallerExpiry(requested, null, caller.keyExpiresAt);
      if (lifetime.refused !== undefined) {
        throw orgErrors.forbidden(lifetime.refused, { param: 'expires_at', caller_expires_at: caller.keyExpiresAt?.toISOString() ?? null });
      }
      expiresAt = lifetime.expiresAt;
    }
    const allowlist = (input.ip_allowlist ?? []).map((entry) => entry.trim());
    const bad = allowlist.filter((entry) => !isValidIpEntry(entry));
    if (bad.length) throw orgErrors.validation(`Invalid IP allowlist entries: ${bad.join(', ')}`, 'ip_allowlist', { invalid_entries: bad });
    const name = input.name.trim();
    if (!name) throw orgErrors.validation('name must not be blank', 'name');
    const plaintext = generateApiKey();
    let key: ApiKeyEntity;
    try {
      key = await this.repositories.apiKeys.create(caller.orgId, {
        name,
        key_hash: hashApiKey(plaintext),
        key_prefix: keyDisplayPrefix(plaintext),
        last_four: keyLastFour(plaintext),
        scopes,
        ip_allowlist: allowlist,
        team_id: input.team_id ?? null,
        created_by: caller.userId ?? caller.keyId,
        expires_at: expiresAt,
      });
    } catch (error) {
      if (!(error instanceof DuplicateKeyError)) throw error;
      const existing = await this.repositories.apiKeys.findByName(caller.orgId, name);
      throw new ConflictError('resource_already_exists', `An API key named "${name}" already exists`, {
        resource_type: 'api_key',
        conflicting_id: existing?._id ?? null,
      });
    }
    return {
      id: key._id,
      name: key.name,
      key: plaintext,
      scopes: key.scopes,
      created_at: key.created_at.toISOString(),
      key_prefix: key.key_prefix,
      ip_allowlist: key.ip_allowlist,
      team_id: key.team_id,
      expires_at: iso(key.expires_at ?? null),
    };
  }

  async list(orgId: OrgId, page: { offset: number; limit: number }): Promise<Collection<ApiKeyDto>> {
    return collection(await this.repositories.apiKeys.list(orgId, page), page, toApiKeyDto);
  }

  async get(orgId: OrgId, id: string): Promise<ApiKeyDto> {
    const key = await this.repositories.apiKeys.findById(orgId, id);
    if (!key) throw orgErrors.notFound('API key', id);
    return toApiKeyDto(key);
  }

  /** Revokes a key (idempotent) and drops it from every replica's authentication cache at once. */
  async revoke(orgId: OrgId, id: string): Promise<void> {
    const key = await this.repositories.apiKeys.findById(orgId, id);
    if (!key) throw orgErrors.notFound('API key', id);
    if (key.status === 'active') await this.repositories.apiKeys.revoke(orgId, id);
    await this.invalidation.publish('api-key', key.key_hash);
  }
}
