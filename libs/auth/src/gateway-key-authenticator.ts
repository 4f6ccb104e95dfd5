import { ApiKeyEntity, apiKeyExpired, asOrgId, hashApiKey, OrganizationEntity, Repositories } from '@svc/domain';
import { GatewayError, InvalidationBus, Logger } from '@svc/platform';
import { GatewayKeyCredential } from './credentials';
import { ipMatches } from './client-ip';
import { Principal } from './principal';

export interface AuthenticatorOptions {
  /** How long a key or organization stays cached without an invalidation (bounds staleness). */
  cacheTtlMs?: number;
  /** `last_used_at` is written at most this often per key. */
  touchIntervalMs?: number;
  /** Resolves a runner token (`svc_rt_`) to its session's principal; null when unknown or ended. */
  resolveRunnerToken?: (tokenHash: string, now: Date) => Promise<Principal | null>;
}

interface Cached<T> {
  value: T;
  expiresAt: number;
}

const invalidKey = (message = 'Invalid, expired or revoked API key') =>
  new GatewayError(401, {
    message,
    type: 'authentication_error',
    code: 'invalid_api_key',
    gateway_error_code: 'GW_AUTH_002',
    remediation: 'Create a new key with POST /api/v1/platform/api-keys, or check that you copied it whole.',
  });

/** The key a refusal was about, when it was identified (its organization is then known). */
export interface RefusedKey {
  orgId: string;
  keyId: string;
  keyName: string;
  teamId: string | null;
}

/**
 * A refusal of an identified key (rotated past its grace period, or a client address outside its
 * allowlist): the organization is known, so the proxy can meter the refusal like any other.
 */
export class KeyRefusedError extends GatewayError {
  constructor(
    status: number,
    body: ConstructorParameters<typeof GatewayError>[1],
    readonly key: RefusedKey,
  ) {
    super(status, body);
  }
}

/**
 * Authenticates gateway keys: SHA-256 of the key, looked up through an in-process cache. A revoke,
 * rotation or plan change is published on the InvalidationBus and drops the entry on every replica;
 * the TTL (5 s by default) bounds staleness if that message is lost.
 */
export class GatewayKeyAuthenticator {
  private readonly keys = new Map<string, Cached<ApiKeyEntity | null>>();
  private readonly orgs = new Map<string, Cached<OrganizationEntity | null>>();
  private readonly touched = new Map<string, number>();
  /** Bumped by every invalidation, so a lookup that raced with one is not cached. */
  private generation = 0;
  private readonly ttl: number;
  private readonly touchInterval: number;

  constructor(
    private readonly repositories: Pick<Repositories, 'apiKeys' | 'organizations'>,
    invalidation: InvalidationBus,
    private readonly logger: Logger,
    private readonly options: AuthenticatorOptions = {},
  ) {
    this.ttl = options.cacheTtlMs ?? 5_000;
    this.touchInterval = options.touchIntervalMs ?? 60_000;
    invalidation.subscribe('api-key', (hash) => this.invalidate(this.keys, hash));
    invalidation.subscribe('organization', (orgId) => this.invalidate(this.orgs, orgId));
  }

  async authenticate(credential: GatewayKeyCredential, clientIp: string, now = new Date()): Promise<Principal> {
    const hash = hashApiKey(credential.value);
    if (credential.kind === 'runner') {
      const principal = await this.options.resolveRunnerToken?.(hash, now);
      if (!principal) throw invalidKey('Invalid or expired runner token');
      return principal;
    }
    const key = await this.cached(this.keys, hash, () => this.repositories.apiKeys.findByHash(hash));
    if (!key || key.status !== 'active') throw invalidKey();
    // Read from the cached record: expiry costs no lookup, and a cache entry cannot outlive it.
    if (apiKeyExpired(key, now)) {
      throw new KeyRefusedError(401, {
        message: `This API key expired at ${key.expires_at?.toISOString()}.`,
        type: 'authentication_error',
        code: 'invalid_api_key',
        gateway_error_code: 'GW_AUTH_002',
        remediation: 'Create a new key with POST /api/v1/platform/api-keys (optionally with a later expires_at).',
      }, refusedKey(key));
    }
    let deprecation: Principal['deprecation'] = null;
    if (key.replaced_by) {
      const graceUntil = key.grace_until ? key.grace_until.getTime() : 0;
      if (graceUntil <= now.getTime()) {
        throw new KeyRefusedError(401, {
          message: `This API key was rotated and its grace period has ended; use the replacement key ${key.replaced_by}.`,
          type: 'authentication_error',
          code: 'key_rotated',
          gateway_error_code: 'GW_AUTH_003',
          remediation: `Switch to the replacement key (id ${key.replaced_by}) returned when this key was rotated.`,
        }, refusedKey(key));
      }
      deprecation = {
        graceRemainingHours: Math.round(((graceUntil - now.getTime()) / 3_600_000) * 100) / 100,
        replacedBy: key.replaced_by,
      };
    }
    if (key.ip_allowlist.length > 0 && !key.ip_allowlist.some((entry) => ipMatches(clientIp, entry))) {
      throw new KeyRefusedError(403, {
        message: `Requests from ${clientIp} are not allowed for this API key`,
        type: 'permission_error',
        code: 'ip_not_allowed',
        gateway_error_code: 'GW_AUTH_004',
        remediation: "Call from an address in the key's IP allowlist, or ask an admin to add this address.",
      }, refusedKey(key));
    }
    const orgId = asOrgId(key.org_id);
    const organization = await this.cached(this.orgs, key.org_id, () => this.repositories.organizations.findById(orgId));
    if (!organization) throw invalidKey();
    this.touch(key, now);
    return {
      kind: 'api_key',
      orgId,
      organization,
      scopes: key.scopes,
      keyId: key._id,
      keyName: key.name,
      keyExpiresAt: key.expires_at ?? null,
      teamId: key.team_id,
      userId: null,
      role: null,
      deprecation,
    };
  }

  /** The organization of a principal that came from elsewhere (a dashboard token), cached alike. */
  organization(orgId: string): Promise<OrganizationEntity | null> {
    return this.cached(this.orgs, orgId, () => this.repositories.organizations.findById(asOrgId(orgId)));
  }

  private invalidate(map: Map<string, unknown>, id: string): void {
    this.generation++;
    map.delete(id);
  }

  private async cached<T>(map: Map<string, Cached<T>>, id: string, load: () => Promise<T>): Promise<T> {
    const hit = map.get(id);
    const now = Date.now();
    if (hit && hit.expiresAt > now) return hit.value;
    const generation = this.generation;
    const value = await load();
    // A lookup that raced with an invalidation (a revoke published while it read) may hold the
    // record as it was: it serves this request, but is not cached for the next ones.
    if (generation !== this.generation) return value;
    map.set(id, { value, expiresAt: now + this.ttl });
    if (map.size > 50_000) map.delete(map.keys().next().value as string);
    return value;
  }

  /** Records last use off the hot path, at most once per interval per key. */
  private touch(key: ApiKeyEntity, now: Date): void {
    const last = this.touched.get(key._id) ?? 0;
    if (now.getTime() - last < this.touchInterval) return;
    this.touched.set(key._id, now.getTime());
    void this.repositories.apiKeys
      .touchLastUsed(asOrgId(key.org_id), key._id, now)
      .catch((err: unknown) => this.logger.warn({ err, key_id: key._id }, 'could not record key use'));
  }
}

function refusedKey(key: ApiKeyEntity): RefusedKey {
  return { orgId: key.org_id, keyId: key._id, keyName: key.name, teamId: key.team_id ?? null };
}
