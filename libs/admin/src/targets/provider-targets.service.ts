import { Inject, Injectable, Optional } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import {
  DuplicateKeyError,
  EncryptedValue,
  isCredentialHeader,
  MASKED_HEADER_VALUE,
  maskedTargetHeaders,
  OrgId,
  Patch,
  ProviderTargetEntity,
  ProviderTargetKind,
  Repositories,
  SecretCipher,
  SecretDecryptionError,
  StoredTargetHeaders,
  targetApiBase,
} from '@svc/domain';
import {
  APP_CONFIG,
  AppConfig,
  checkOutboundUrl,
  HostResolver,
  invalidRequest,
  InvalidationBus,
  notFound,
  OUTBOUND_RESOLVER,
  OutboundBlockedError,
  outboundResolver,
} from '@svc/platform';
import { GATEWAY_ROUTE_SEGMENTS, providerRegistry } from '@svc/proxy';
import { INVALIDATION_BUS, REPOSITORIES, SECRET_CIPHER } from '@svc/runtime';
import { iso } from '../common/admin-query';
import { alreadyExists, urlNotAllowed } from '../common/admin-errors';
import { assertHeaderSafeKey, isHeaderSafe } from '../common/header-safe';
import { CreateProviderTargetDto, PROVIDER_ID_PATTERN, UpdateProviderTargetDto } from './dto/provider-target.dto';
import { ProviderTargetView } from './dto/provider-target.views';

const MAX_HEADERS = 32;
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}$/;
/** Headers the transport owns (credential names are refused by isCredentialHeader, from @svc/domain). */
const FORBIDDEN_HEADERS = new Set(['host', 'content-length', 'connection', 'transfer-encoding', 'keep-alive', 'upgrade', 'te', 'trailer']);

export function toTargetView(target: ProviderTargetEntity): ProviderTargetView {
  const kind = target.kind ?? 'openai_compatible';
  return {
    id: target._id,
    name: target.name,
    provider_id: target.provider_id,
    kind,
    format: kind,
    base_url: target.base_url,
    api_base: targetApiBase(target),
    has_api_key: target.api_key !== null,
    api_key_last_four: target.api_key_last_four,
    headers: maskedTargetHeaders(target),
    enabled: target.enabled,
    models: target.models,
    last_discovery_at: iso(target.last_discovery_at),
    last_discovery_status: target.last_discovery_status,
    created_at: target.created_at.toISOString(),
    updated_at: target.updated_at.toISOString(),
  };
}

/** A routing id from a name: `My vLLM box` -> `my-vllm-box`. */
export function providerIdFrom(name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .slice(0, 64)
    .replace(/-+$/, '');
  return slug || 'target';
}

/**
 * An organization's provider targets (SPEC.md "Provider target"): OpenAI-compatible or Ollama
 * servers registered as D providers. The target's key is sealed with SECRET_CIPHER; every change
 * publishes `provider-target` (id = organization id) for the proxies' registries.
 */
@Injectable()
export class ProviderTargetsService {
  constructor(
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    @Inject(SECRET_CIPHER) private readonly cipher: SecretCipher,
    @Inject(INVALIDATION_BUS) private readonly invalidation: InvalidationBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Optional() @Inject(OUTBOUND_RESOLVER) private readonly resolve: HostResolver = outboundResolver(config),
  ) {}

  async load(orgId: OrgId, id: string): Promise<ProviderTargetEntity> {
    const target = await this.repositories.providerTargets.findById(orgId, id);
    if (!target) throw notFound('Provider target', 'target_id');
    return target;
  }

  async list(principal: Principal, page: { offset: number; limit: number }) {
    const result = await this.repositories.providerTargets.list(principal.orgId, { ...page, sort: { name: 1, _id: 1 } });
    return { items: result.items.map(toTargetView), total: result.total, offset: result.offset, limit: result.limit };
  }

  async create(principal: Principal, body: CreateProviderTargetDto): Promise<ProviderTargetView> {
    const orgId = principal.orgId;
    const name = body.name.trim();
    if (!name) throw invalidRequest('name must not be blank', 'name');
    const providerId = body.provider_id ?? providerIdFrom(name);
    if (!PROVIDER_ID_PATTERN.test(providerId)) throw invalidRequest('provider_id could not be derived from the name; send one', 'provider_id');
    if (providerRegistry.has(providerId)) {
      throw invalidRequest(`provider_id '${providerId}' is a built-in provider; choose another routing id`, 'provider_id', 'provider_id_reserved');
    }
    if (GATEWAY_ROUTE_SEGMENTS.has(providerId)) {
      throw invalidRequest(`provider_id '${providerId}' names one of the gateway's own routes (/v1/${providerId}/...); choose another routing id`, 'provider_id', 'provider_id_reserved');
    }
    const kind = this.kindOf(body) ?? 'openai_compatible';
    const baseUrl = await this.checkBaseUrl(body.base_url);
    const apiKey = body.api_key?.trim();
    if (apiKey) assertHeaderSafeKey(apiKey, 'api_key');
    try {
      const created = await this.repositories.providerTargets.create(orgId, {
        name,
        provider_id: providerId,
        base_url: baseUrl,
        format: 'openai',
        kind,
        api_key: apiKey ? this.cipher.encrypt(orgId, apiKey) : null,
        api_key_last_four: apiKey ? apiKey.slice(-4) : null,
        headers: this.checkHeaders(body.headers).headers,
        enabled: body.enabled ?? true,
        models: this.models(body.models),
      });
      await this.invalidation.publish('provider-target', orgId);
      return toTargetView(created);
    } catch (error) {
      throw await this.conflict(orgId, error, name, providerId);
    }
  }

  async update(principal: Principal, id: string, body: UpdateProviderTargetDto): Promise<ProviderTargetView> {
    const orgId = principal.orgId;
    const target = await this.load(orgId, id);
    const patch: Patch<ProviderTargetEntity> = {};
    if (body.name !== undefined) {
      patch.name = body.name.trim();
      if (!patch.name) throw invalidRequest('name must not be blank', 'name');
    }
    const kind = this.kindOf(body);
    if (kind) patch.kind = kind;
    if (body.base_url !== undefined) patch.base_url = await this.checkBaseUrl(body.base_url);
    if (body.api_key !== undefined) {
      const key = body.api_key?.trim() || null;
      if (key) assertHeaderSafeKey(key, 'api_key');
      patch.api_key = key ? this.cipher.encrypt(orgId, key) : null;
      patch.api_key_last_four = key ? key.slice(-4) : null;
    }
    if (body.headers !== undefined) Object.assign(patch, this.checkHeaders(body.headers, target));
    if (body.enabled !== undefined) patch.enabled = body.enabled;
    if (body.models !== undefined) patch.models = this.models(body.models);
    try {
      const updated = await this.repositories.providerTargets.updateById(orgId, target._id, patch);
      if (!updated) throw notFound('Provider target', 'target_id');
      await this.invalidation.publish('provider-target', orgId);
      return toTargetView(updated);
    } catch (error) {
      throw await this.conflict(orgId, error, patch.name ?? target.name, target.provider_id);
    }
  }

  /** Deletes the target and its discovered models; requests routed to it fail from the next one. */
  async remove(principal: Principal, id: string): Promise<void> {
    const target = await this.load(principal.orgId, id);
    await this.repositories.providerTargets.deleteById(principal.orgId, target._id);
    await this.repositories.discoveredModels.deleteByTarget(principal.orgId, target._id);
    await this.invalidation.publish('provider-target', principal.orgId);
  }

  private kindOf(body: { format?: ProviderTargetKind; kind?: ProviderTargetKind }): ProviderTargetKind | undefined {
    if (body.format && body.kind && body.format !== body.kind) throw invalidRequest('format and kind differ; send one of them', 'kind');
    return body.format ?? body.kind;
  }

  /**
   * Outbound safety at registration (discovery checks again, at connect time). http is allowed:
   * self-hosted servers. The host is resolved as discovery resolves it, within DISCOVERY_TIMEOUT_MS.
   */
  private async checkBaseUrl(url: string): Promise<string> {
    try {
      const { OUTBOUND_ALLOW_PRIVATE_NETWORKS: allowPrivate, DISCOVERY_TIMEOUT_MS: timeoutMs } = this.config;
      const parsed = await checkOutboundUrl(url.trim(), { allowPrivate, allowHttp: true, resolve: this.resolve, timeoutMs });
      if (parsed.search || parsed.hash) throw invalidRequest('base_url must not have a query or a fragment', 'base_url');
      return parsed.href.replace(/\/+$/, '');
    } catch (error) {
      if (error instanceof OutboundBlockedError) throw urlNotAllowed(error, 'base_url');
      throw error;
    }
  }

  /**
   * Validates `headers` (they replace the stored set). A credential name is refused, except one the
   * target already stores (sealed, configured before such names were refused) sent back with the
   * masked value the API answers (`[REDACTED]`): it keeps its stored value, sealed.
   */
  private checkHeaders(headers: Record<string, unknown> | undefined, stored?: ProviderTargetEntity): StoredTargetHeaders {
    const out: StoredTargetHeaders = { headers: {}, sealed_headers: {} };
    if (!headers) return out;
    const entries = Object.entries(headers);
    if (entries.length > MAX_HEADERS) throw invalidRequest(`headers: at most ${MAX_HEADERS} entries`, 'headers');
    for (const [name, value] of entries) {
      if (!HEADER_NAME.test(name)) throw invalidRequest(`headers: '${name.slice(0, 64)}' is not a valid header name`, `headers.${name.slice(0, 64)}`);
      // HTTP allows them, but no provider header uses them and MongoDB may refuse them as field names.
      if (name.startsWith('$') || name.includes('.')) throw invalidRequest(`headers: '${name.slice(0, 64)}' cannot be stored: a header name may not start with '$' or contain '.'`, 'headers');
      const lower = name.toLowerCase();
      if (isCredentialHeader(name) && stored && value === MASKED_HEADER_VALUE) {
        const kept = this.storedCredential(stored, lower);
        if (kept) {
          out.sealed_headers[lower] = kept;
          continue;
        }
      }
      if (FORBIDDEN_HEADERS.has(lower) || isCredentialHeader(name)) {
        throw invalidRequest(`headers: ${name} cannot be set here${isCredentialHeader(name) ? '; send the credential as api_key (stored encrypted)' : ''}`, `headers.${name}`);
      }
      if (typeof value !== 'string' || value.length > 4096 || !isHeaderSafe(value)) {
        throw invalidRequest(`headers: the value of ${name} must be a single-line string of printable ASCII, at most 4096 characters`, `headers.${name}`);
      }
      out.headers[lower] = value;
    }
    return out;
  }

  /**
   * A credential header the target stores, sealed under the current master key (one still in clear in
   * an older document is sealed here; one whose key is no longer configured is kept as it is).
   */
  private storedCredential(target: ProviderTargetEntity, name: string): EncryptedValue | null {
    const sealed = target.sealed_headers?.[name];
    if (sealed) {
      if (!this.cipher.needsReencryption(sealed)) return sealed;
      try {
        return this.cipher.reencrypt(target.org_id, sealed);
      } catch (error) {
        if (error instanceof SecretDecryptionError) return sealed;
        throw error;
      }
    }
    const clear = target.headers[name];
    return clear === undefined ? null : this.cipher.encrypt(target.org_id, clear);
  }

  private models(models: string[] | undefined): string[] {
    return [...new Set((models ?? []).map((model) => model.trim()).filter(Boolean))];
  }

  private async conflict(orgId: OrgId, error: unknown, name: string, providerId: string): Promise<unknown> {
    if (!(error instanceof DuplicateKeyError)) return error;
    const targets = this.repositories.providerTargets;
    if (error.index === 'org_provider_id_unique') {
      const existing = await targets.findByProviderId(orgId, providerId);
      return alreadyExists('provider_target', `A provider target with provider_id '${providerId}' already exists`, existing?._id ?? null);
    }
    const existing = (await targets.list(orgId, { filter: { name }, limit: 1 })).items[0];
    return alreadyExists('provider_target', `A provider target named '${name}' already exists`, existing?._id ?? null);
  }
}
