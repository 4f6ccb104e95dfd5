import { Inject, Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { DuplicateKeyError, OrgId, ProviderSecretEntity, Repositories, SecretCipher } from '@svc/domain';
import { ConflictError, invalidRequest, InvalidationBus, notFound } from '@svc/platform';
import { providerRegistry } from '@svc/proxy';
import { INVALIDATION_BUS, REPOSITORIES, SECRET_CIPHER } from '@svc/runtime';
import { iso } from '../common/admin-query';
import { assertHeaderSafeKey } from '../common/header-safe';
import { SecretList, SecretView, StoreSecretDto } from './dto/secret.dto';

export function toSecretView(secret: ProviderSecretEntity): SecretView {
  return {
    id: secret._id,
    provider: secret.provider,
    label: secret.label,
    last_four: secret.last_four,
    created_at: secret.created_at.toISOString(),
    updated_at: secret.updated_at.toISOString(),
    rotated_at: iso(secret.rotated_at),
  };
}

/**
 * Provider keys stored per organization (SPEC.md priority 3 of provider-key resolution), sealed
 * with SECRET_CIPHER (the organization id as associated data). The plaintext is read from the body,
 * encrypted and dropped: it is never returned or logged. Every change publishes `provider-secret`
 * (id = organization id) so the proxies drop their decrypted copies.
 */
@Injectable()
export class SecretsService {
  constructor(
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    @Inject(SECRET_CIPHER) private readonly cipher: SecretCipher,
    @Inject(INVALIDATION_BUS) private readonly invalidation: InvalidationBus,
  ) {}

  async list(principal: Principal): Promise<SecretList> {
    const items = (await this.repositories.providerSecrets.listAll(principal.orgId)).map(toSecretView);
    return { items, total: items.length };
  }

  /** 409 `secret_already_stored` when the provider has one: rotate it instead. */
  async store(principal: Principal, body: StoreSecretDto): Promise<SecretView> {
    const orgId = principal.orgId;
    const provider = await this.providerId(orgId, body.provider);
    const plaintext = this.plaintextOf(body);
    try {
      const created = await this.repositories.providerSecrets.create(orgId, {
        provider,
        encrypted: this.cipher.encrypt(orgId, plaintext),
        last_four: plaintext.slice(-4),
        label: body.label?.trim() || null,
      });
      await this.invalidation.publish('provider-secret', orgId);
      return toSecretView(created);
    } catch (error) {
      if (!(error instanceof DuplicateKeyError)) throw error;
      throw new ConflictError('secret_already_stored', `A key for ${provider} is already stored; replace it with POST /gateway/admin/secrets/rotate.`);
    }
  }

  /** Replaces the stored key of a provider (the old one stops being used at once); 404 when none is stored. */
  async rotate(principal: Principal, body: StoreSecretDto): Promise<SecretView> {
    const orgId = principal.orgId;
    const provider = await this.providerId(orgId, body.provider);
    const plaintext = this.plaintextOf(body);
    const label = body.label === undefined ? undefined : body.label?.trim() || null;
    const rotated = await this.repositories.providerSecrets.rotate(orgId, provider, this.cipher.encrypt(orgId, plaintext), plaintext.slice(-4), label);
    if (!rotated) throw notFound(`Stored key for provider ${provider}`, 'provider');
    await this.invalidation.publish('provider-secret', orgId);
    return toSecretView(rotated);
  }

  /** Revokes the stored key: explicit provider keys are needed again. */
  async remove(principal: Principal, providerParam: string): Promise<void> {
    const orgId = principal.orgId;
    const provider = providerRegistry.get(providerParam)?.id ?? providerParam.toLowerCase();
    if (!(await this.repositories.providerSecrets.deleteByProvider(orgId, provider))) throw notFound(`Stored key for provider ${provider}`, 'provider');
    await this.invalidation.publish('provider-secret', orgId);
  }

  /** The canonical provider id: a registry id or alias (`google` -> `gemini`), or one of the org's targets. */
  private async providerId(orgId: OrgId, name: string): Promise<string> {
    const lower = name.trim().toLowerCase();
    const builtIn = providerRegistry.get(lower);
    if (builtIn) return builtIn.id;
    const target = lower ? await this.repositories.providerTargets.findByProviderId(orgId, lower) : null;
    if (target) return target.provider_id;
    throw invalidRequest(`Unknown provider '${name}': use a provider id of GET /v1/models or one of your provider targets`, 'provider', 'unknown_provider');
  }

  private plaintextOf(body: StoreSecretDto): string {
    const key = body.plaintext_key ?? body.secret;
    if (body.plaintext_key !== undefined && body.secret !== undefined && body.plaintext_key !== body.secret) {
      throw invalidRequest('Send the key as plaintext_key or secret, not both', 'secret');
    }
    const value = typeof key === 'string' ? key.trim() : '';
    if (!value) throw invalidRequest('plaintext_key is required (secret is accepted in its place)', 'plaintext_key');
    if (value.length < 8) throw invalidRequest('plaintext_key is too short to be a provider key', 'plaintext_key');
    assertHeaderSafeKey(value, body.plaintext_key !== undefined ? 'plaintext_key' : 'secret');
    return value;
  }
}
