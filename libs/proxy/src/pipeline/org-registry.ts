import { Inject, Injectable } from '@nestjs/common';
import { asOrgId, EncryptedValue, loadOrgProviderTargets, openTargetHeaders, Repositories, SecretCipher } from '@svc/domain';
import { InvalidationBus, LOGGER, Logger } from '@svc/platform';
import { INVALIDATION_BUS, REPOSITORIES, SECRET_CIPHER } from '@svc/runtime';
import { GATEWAY_ROUTE_SEGMENTS, ProviderDefinition, ProviderRegistry, providerRegistry } from '../providers';
import { unknownProvider } from './route-refusals';
import { TtlCache } from './ttl-cache';

interface OrgProviders {
  registry: ProviderRegistry;
  /** Encrypted keys of the organization's provider targets, by routing id. */
  keys: Map<string, EncryptedValue | null>;
}

/**
 * The built-in registry overlaid by the organization's provider targets (with their discovered
 * models), so targets are routable (`/v1/{target}/...`, `target/model`) and listed by GET /v1/models.
 * Cached per organization for 5 s and dropped on a `provider-target` invalidation.
 */
@Injectable()
export class OrgProviderRegistry {
  private readonly cache = new TtlCache<OrgProviders>(5_000);

  constructor(
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    @Inject(SECRET_CIPHER) private readonly cipher: SecretCipher,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(INVALIDATION_BUS) invalidation: InvalidationBus,
  ) {
    invalidation.subscribe('provider-target', (orgId) => this.cache.delete(orgId));
  }

  async registry(orgId: string): Promise<ProviderRegistry> {
    return (await this.load(orgId)).registry;
  }

  /** A provider of the organization (built-in or one of its targets) by id or alias; 404 `unknown_provider` otherwise. */
  async provider(orgId: string, id: string): Promise<ProviderDefinition> {
    const definition = (await this.registry(orgId)).get(id.toLowerCase());
    if (!definition) throw unknownProvider(id);
    return definition;
  }

  /** The decrypted key stored on an organization's provider target, if the provider is one. */
  async targetKey(orgId: string, providerId: string): Promise<string | undefined> {
    const sealed = (await this.load(orgId)).keys.get(providerId);
    if (!sealed) return undefined;
    try {
      return this.cipher.decrypt(orgId, sealed);
    } catch (err) {
      this.logger.error({ err, org_id: orgId, provider: providerId }, 'a provider target key could not be decrypted');
      return undefined;
    }
  }

  private load(orgId: string): Promise<OrgProviders> {
    return this.cache.get(orgId, async () => {
      // A target named like a built-in or like a route of the gateway (`admin`, `chat`, ...: stored
      // before the name was reserved) is never a provider.
      const routes = (await loadOrgProviderTargets(this.repositories, asOrgId(orgId))).filter(
        (route) => !providerRegistry.get(route.id) && !GATEWAY_ROUTE_SEGMENTS.has(route.id.toLowerCase()),
      );
      if (routes.length === 0) return { registry: providerRegistry, keys: new Map() };
      const registry = providerRegistry.withTargets(
        routes.map((route) => ({
          id: route.id,
          baseUrl: route.baseUrl,
          displayName: route.displayName,
          // Sealed credential headers (targets configured before they were refused) go out as before.
          headers: openTargetHeaders(this.cipher, { org_id: orgId, headers: route.headers, sealed_headers: route.sealedHeaders }, (header, err) =>
            this.logger.error({ err, org_id: orgId, provider: route.id, header }, 'a sealed header of a provider target could not be decrypted; sent without it'),
          ),
          requiresKey: route.requiresKey,
          models: route.models,
        })),
      );
      return { registry, keys: new Map(routes.map((route) => [route.id, route.apiKey])) };
    });
  }
}
