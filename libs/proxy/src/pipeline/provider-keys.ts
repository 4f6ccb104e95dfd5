import { Inject, Injectable } from '@nestjs/common';
import { asOrgId, Repositories, SecretCipher } from '@svc/domain';
import { APP_CONFIG, AppConfig, InvalidationBus, LOGGER, Logger } from '@svc/platform';
import { INVALIDATION_BUS, REPOSITORIES, SECRET_CIPHER } from '@svc/runtime';
import { TtlCache } from './ttl-cache';

/**
 * The stored and environment sources of provider keys (SPEC.md priorities 3 and 4). Stored secrets
 * are decrypted here, with the organization id as associated data, and kept decrypted in process
 * for a few seconds; a rotate or delete invalidates them on every replica.
 */
@Injectable()
export class ProviderKeySources {
  private readonly cache = new TtlCache<string | undefined>(5_000);

  constructor(
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    @Inject(SECRET_CIPHER) private readonly cipher: SecretCipher,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(INVALIDATION_BUS) invalidation: InvalidationBus,
  ) {
    invalidation.subscribe('provider-secret', (orgId) => this.cache.deletePrefix(`${orgId}:`));
  }

  storedSecret(orgId: string, provider: string): Promise<string | undefined> {
    return this.cache.get(`${orgId}:${provider}`, async () => {
      const record = await this.repositories.providerSecrets.findByProvider(asOrgId(orgId), provider);
      if (!record) return undefined;
      try {
        return this.cipher.decrypt(orgId, record);
      } catch (err) {
        this.logger.error({ err, org_id: orgId, provider }, 'a stored provider secret could not be decrypted');
        return undefined;
      }
    });
  }

  environmentKey(provider: string): string | undefined {
    return this.config.providerApiKeys[provider];
  }
}
